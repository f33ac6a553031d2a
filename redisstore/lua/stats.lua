-- stats.lua: counts, config and latency of one queue (read-only; see
-- stats.go).
--
-- KEYS: 1 ready list, 2 pending zset, 3 unack zset, 4 retry zset,
--       5 garbage zset, 6 done zset, 7 config hash, 8 jobs hash,
--       9 attempt info hash, 10 rate log (lib_rate.lua)
-- Returns {nowMs, ready, pending, unack, retry, garbage, done, readySinceMs
-- (0 when nothing is ready), config field1, value1, ...}; with a rate
-- limit, the field "~used" is the claims it counts now.

local now = now_ms()
local cf = redis.call('HMGET', KEYS[7], 'pm', 'gm')
local out = {now,
  0, -- ready: counted below, over every ready list
  redis.call('ZCARD', KEYS[2]),
  redis.call('ZCOUNT', KEYS[3], '-inf', '(inf'), -- without the sentinel
  redis.call('ZCARD', KEYS[4]),
  redis.call('ZCARD', KEYS[5]),
  redis.call('ZCARD', KEYS[6]),
  0}
-- The ready lists are the priority levels and the groups' lists
-- (lib_group.lua); the oldest ready job is the head of one of them.
out[2], out[8] = ready_depth(KEYS[1], cf[1], cf[2], KEYS[8], KEYS[9], out[3] + out[4] + out[5] + out[6] + out[7])
local rate, period
local conf = redis.call('HGETALL', KEYS[7])
for i = 1, #conf, 2 do
  local f, v = conf[i], conf[i + 1]
  out[#out + 1] = f
  out[#out + 1] = v
  if f == 'rate' then rate = v elseif f == 'period' then period = v end
end
if rate then
  out[#out + 1] = '~used'
  out[#out + 1] = str(rate_live(KEYS[10], now, tonumber(period) or 1000))
end
return out
