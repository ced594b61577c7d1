-- Claude-style Messages with a coding agent's ~100K-token prompt, SSE answer (Anthropic passthrough)
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', 'claude-large.json', 'anthropic', 'bench.claude-sse')
