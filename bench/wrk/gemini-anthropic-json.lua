-- Gemini-style generateContent, translated to an Anthropic upstream
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', 'gemini-generate.json', 'gemini')
