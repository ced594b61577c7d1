/**
 * Lua run atomically inside Redis, so every instance sees one order of admissions. Time comes
 * from Redis (TIME) so instances with skewed clocks still share windows.
 *
 * Window counter: a hash of bucket index → amount, expiring after the window.
 * Lifetime counter: a hash with `used` (settled) and `r:<reservation id>` = "amount:deadline".
 *
 * ACQUIRE KEYS: counter keys. ARGV: reservation id, reservation ttl ms, then per counter
 * windowMs (0 = lifetime), bucketMs, limit, amount, seed (-1 = none).
 * Returns {0, now} when taken, {i, retryMs} when counter i refused (retryMs -1: never fits).
 */
export const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rid = ARGV[1]
local ttl = tonumber(ARGV[2])
local plans = {}
for i = 1, #KEYS do
  local b = 2 + (i - 1) * 5
  local windowMs = tonumber(ARGV[b + 1])
  local bucketMs = tonumber(ARGV[b + 2])
  local limit = tonumber(ARGV[b + 3])
  local amount = tonumber(ARGV[b + 4])
  local seed = tonumber(ARGV[b + 5])
  local key = KEYS[i]
  if windowMs > 0 then
    local count = math.ceil(windowMs / bucketMs)
    local current = math.floor(now / bucketMs)
    local oldest = current - count + 1
    local flat = redis.call('HGETALL', key)
    local used = 0
    local live = {}
    for j = 1, #flat, 2 do
      local index = tonumber(flat[j])
      if index < oldest then
        redis.call('HDEL', key, flat[j])
      else
        local value = tonumber(flat[j + 1])
        used = used + value
        live[#live + 1] = { index, value }
      end
    end
    if used + amount > limit then
      if amount > limit then return { i, -1 } end
      table.sort(live, function(x, y) return x[1] < y[1] end)
      local need = used + amount - limit
      local freed = 0
      for _, bucket in ipairs(live) do
        freed = freed + bucket[2]
        if freed >= need then return { i, math.max(1, (bucket[1] + count) * bucketMs - now) } end
      end
      return { i, windowMs }
    end
    plans[i] = { key, string.format('%d', current), ARGV[b + 4], windowMs + bucketMs }
  else
    if seed >= 0 and redis.call('EXISTS', key) == 0 then redis.call('HSET', key, 'used', ARGV[b + 5]) end
    local flat = redis.call('HGETALL', key)
    local used = 0
    local held = 0
    for j = 1, #flat, 2 do
      if flat[j] == 'used' then
        used = tonumber(flat[j + 1])
      else
        local amt, deadline = string.match(flat[j + 1], '^(%-?%d+):(%d+)$')
        if amt == nil or tonumber(deadline) < now then
          redis.call('HDEL', key, flat[j])
        else
          held = held + tonumber(amt)
        end
      end
    end
    if used + held + amount > limit then
      if used + amount > limit then return { i, -1 } end
      return { i, 1000 }
    end
    plans[i] = { key, 'r:' .. rid, ARGV[b + 4] .. ':' .. string.format('%d', now + ttl), -1 }
  end
end
for i = 1, #KEYS do
  local p = plans[i]
  if p[4] >= 0 then
    redis.call('HINCRBY', p[1], p[2], p[3])
    redis.call('PEXPIRE', p[1], p[4])
  else
    redis.call('HSET', p[1], p[2], p[3])
  end
end
return { 0, now }
`;

/**
 * SETTLE KEYS: counter keys. ARGV: reservation id, admission time ms, then per counter
 * windowMs (0 = lifetime), bucketMs, reserved, actual.
 */
export const SETTLE = `
local rid = ARGV[1]
local at = tonumber(ARGV[2])
for i = 1, #KEYS do
  local b = 2 + (i - 1) * 4
  local windowMs = tonumber(ARGV[b + 1])
  local bucketMs = tonumber(ARGV[b + 2])
  local delta = tonumber(ARGV[b + 4]) - tonumber(ARGV[b + 3])
  local key = KEYS[i]
  if windowMs > 0 then
    local field = string.format('%d', math.floor(at / bucketMs))
    if delta ~= 0 and redis.call('HEXISTS', key, field) == 1 then
      redis.call('HINCRBY', key, field, string.format('%d', delta))
    end
  else
    redis.call('HDEL', key, 'r:' .. rid)
    if tonumber(ARGV[b + 4]) ~= 0 then redis.call('HINCRBY', key, 'used', ARGV[b + 4]) end
  end
end
return 0
`;
