-- Claude-style Messages, JSON answer (Anthropic passthrough)
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', 'claude-anthropic-json.json', 'anthropic')
