-- GET /api/openai/v1/models (OpenAI-style listing): no body, bearer key
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('GET', nil, 'openai')
