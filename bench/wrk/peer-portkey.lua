-- Portkey's gateway in front of the same nginx answers: Claude-style Messages with Portkey's
-- routing headers (provider and custom host), body file and host from the environment.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
bench_request('POST', os.getenv('BENCH_BODY'), 'anthropic')
wrk.headers['x-api-key'] = 'sk-ant-bench'
wrk.headers['x-portkey-provider'] = 'anthropic'
wrk.headers['x-portkey-custom-host'] = os.getenv('BENCH_PORTKEY_HOST')
