-- Shared by every scenario script: loads the request body, sets headers, and reports the run as
-- one JSON line ("BENCH_RESULT {...}") that bench/run.ts parses. wrk measures latency from the
-- request being written to the whole response being read, so for SSE it is time to last byte.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local bodies = here .. '../bodies/'
local key = os.getenv('BENCH_KEY') or 'sy-bench-key-0123456789abcdef'

-- model: sent in place of the body file's own (the file names it once, as its first member).
function bench_request(method, body_file, family, model)
  wrk.method = method
  if body_file then
    local f = assert(io.open(bodies .. body_file, 'rb'))
    wrk.body = f:read('*a')
    f:close()
    if model then
      local n
      wrk.body, n = wrk.body:gsub('^{"model":"[^"]*"', '{"model":"' .. model .. '"', 1)
      assert(n == 1, body_file .. ': the body does not start with its model')
    end
    wrk.headers['content-type'] = 'application/json'
  end
  if family == 'anthropic' then
    wrk.headers['x-api-key'] = key
    wrk.headers['anthropic-version'] = '2023-06-01'
  elseif family == 'gemini' then
    wrk.headers['x-goog-api-key'] = key
  else
    wrk.headers['authorization'] = 'Bearer ' .. key
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"mean":%.2f,"max":%d,"min":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.mean, latency.max, latency.min))
end
