-- lib_throughput.lua: throughput counter helper (see scripts.go, stats.go).

-- count_throughput adds n to the per-minute counter field (prefix "d" for
-- acks, "f" for failures) of hash t. Minutes are kept KEEP_MINUTES (a
-- day); older ones are rolled up into per-hour fields ("D" and "F" with
-- the Unix hour) kept KEEP_HOURS (30 days). The roll-up runs when a new
-- minute field appears on a quarter hour, or when the hash outgrows its
-- bound: a pass over the hash (at most 2 × (KEEP_MINUTES + KEEP_HOURS)
-- fields) a quarter hour per queue, nothing per call otherwise.
local KEEP_MINUTES = 1440
local KEEP_HOURS = 720
local function count_throughput(t, kind, now, n)
  if n == 0 then return end
  local minute = math.floor(now / 60000)
  if redis.call('HINCRBY', t, kind .. str(minute), n) ~= n then return end
  if minute % 15 ~= 0 and redis.call('HLEN', t) <= 2 * (KEEP_MINUTES + KEEP_HOURS) + 8 then return end
  local all = redis.call('HGETALL', t)
  local old_min, old_hour = minute - KEEP_MINUTES, math.floor(minute / 60) - KEEP_HOURS
  local del, up = {}, {}
  for i = 1, #all, 2 do
    local f = all[i]
    local p, at = string.sub(f, 1, 1), tonumber(string.sub(f, 2))
    if not at then
      del[#del + 1] = f
    elseif (p == 'd' or p == 'f') and at < old_min then
      del[#del + 1] = f
      local h = (p == 'd' and 'D' or 'F') .. math.floor(at / 60)
      up[h] = (up[h] or 0) + (tonumber(all[i + 1]) or 0)
    elseif (p == 'D' or p == 'F') and at < old_hour then
      del[#del + 1] = f
    end
  end
  if #del > 0 then call_chunked('HDEL', t, del, 1) end
  for h, c in pairs(up) do
    if tonumber(string.sub(h, 2)) >= old_hour then redis.call('HINCRBY', t, h, c) end
  end
end
