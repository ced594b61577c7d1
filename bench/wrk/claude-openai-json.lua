-- Claude-style Messages, JSON answer, translated to an OpenAI-compatible upstream
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', 'claude-openai-json.json', 'anthropic')
