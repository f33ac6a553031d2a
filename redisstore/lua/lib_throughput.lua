-- lib_throughput.lua: throughput counter helper (see scripts.go).

-- count_throughput adds n to the per-minute counter field (prefix "d" for
-- acks, "f" for failures) of hash t. When a field is new, fields older than
-- KEEP_MINUTES are dropped, so the hash stays bounded without key expiry.
local KEEP_MINUTES = 180
local function count_throughput(t, kind, now, n)
  if n == 0 then return end
  local minute = math.floor(now / 60000)
  if redis.call('HINCRBY', t, kind .. str(minute), n) == n and redis.call('HLEN', t) > 2 * KEEP_MINUTES + 4 then
    local old = {}
    for _, f in ipairs(redis.call('HKEYS', t)) do
      if tonumber(string.sub(f, 2)) < minute - KEEP_MINUTES then old[#old + 1] = f end
    end
    if #old > 0 then call_chunked('HDEL', t, old, 1) end
  end
end
