-- Claude-style Messages, stream: true, translated to an OpenAI-compatible upstream
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', 'claude-openai-sse.json', 'anthropic')
