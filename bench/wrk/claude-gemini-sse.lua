-- Claude-style Messages, stream: true, translated to a Gemini upstream
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', 'claude-gemini-sse.json', 'anthropic')
