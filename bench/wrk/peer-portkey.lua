-- Portkey's gateway in front of the same nginx answers, with Portkey's routing headers (provider
-- and custom host): body file, host and the client family (how the key is sent: Claude-style
-- Messages or OpenAI-style chat) from the environment.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'common.lua')
local family = os.getenv('BENCH_PEER_FAMILY') or 'anthropic'
bench_request('POST', os.getenv('BENCH_BODY'), family)
if family == 'anthropic' then
  wrk.headers['x-api-key'] = 'sk-ant-bench'
else
  wrk.headers['authorization'] = 'Bearer sk-ant-bench'
end
wrk.headers['x-portkey-provider'] = 'anthropic'
wrk.headers['x-portkey-custom-host'] = os.getenv('BENCH_PORTKEY_HOST')
