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
local pm = redis.call('HGET', KEYS[7], 'pm')
local out = {now,
  ready_len(KEYS[1], pm) + ext().grouped_len(KEYS[1]),
  redis.call('ZCARD', KEYS[2]),
  redis.call('ZCOUNT', KEYS[3], '-inf', '(inf'), -- without the sentinel
  redis.call('ZCARD', KEYS[4]),
  redis.call('ZCARD', KEYS[5]),
  redis.call('ZCARD', KEYS[6]),
  0}
-- The oldest ready job is the head of one of the levels. A head fell due
-- when it was promoted or released (attempt info) or else when it was
-- enqueued (the value's prefix).
local lists = {}
for _, p in ipairs(ext().levels(pm)) do lists[#lists + 1] = ready_at(KEYS[1], p) end
for _, g in ipairs(ext().group_names(KEYS[1])) do lists[#lists + 1] = ext().glist(KEYS[1], g) end
for _, l in ipairs(lists) do
  local head = redis.call('LINDEX', l, 0)
  if head then
    local since = 0
    local _, _, _, r = parse_att(redis.call('HGET', KEYS[9], head))
    if r ~= '' then
      since = tonumber(r)
    else
      local v = redis.call('HGET', KEYS[8], head)
      if v then since = tonumber(string.match(v, '^(%d+),')) or 0 end
    end
    if out[8] == 0 or since < out[8] then out[8] = since end
  end
end
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
