-- throughput.lua: throughput counters and depth samples of a queue (see
-- stats.go).
--- @keys tput

-- count_throughput adds n to the per-minute counter field (prefix "d" for
-- acks, "f" for failures) of the throughput hash. Minutes are kept KEEP_MINUTES (a
-- day); older ones are rolled up into per-hour fields ("D" and "F" with
-- the Unix hour) kept KEEP_HOURS (30 days). The roll-up runs when a new
-- minute field appears on a quarter hour, or when the hash outgrows its
-- bound: a pass over the hash (at most 2 × (KEEP_MINUTES + KEEP_HOURS)
-- fields) a quarter hour per queue, nothing per call otherwise.
-- tput_trim rolls the minute fields of hash t older than KEEP_MINUTES into
-- their hours and drops hours older than KEEP_HOURS, when a new minute
-- field of minute appeared on a quarter hour or the hash outgrew its
-- bound: a pass over at most 4 × (KEEP_MINUTES + KEEP_HOURS) fields.
local function tput_trim(minute)
  local t = K.tput
  if minute % 15 ~= 0 and rcall('HLEN', t) <= 4 * (KEEP_MINUTES + KEEP_HOURS) + 8 then return end
  -- Minute fields: d, f (counts, summed into their hour: D, F), r, l
  -- (ready jobs and latency ms sampled, the hour keeping the largest).
  local HOUR_OF = {d = 'D', f = 'F', r = 'R', l = 'L'}
  local SUMMED = {d = true, f = true}
  local all = rcall('HGETALL', t)
  local old_min, old_hour = minute - KEEP_MINUTES, math.floor(minute / 60) - KEEP_HOURS
  local del, up = {}, {}
  for i = 1, #all, 2 do
    local f = all[i]
    local p, at = string.sub(f, 1, 1), tonumber(string.sub(f, 2))
    if not at then
      del[#del + 1] = f
    elseif HOUR_OF[p] and at < old_min then
      del[#del + 1] = f
      local h = HOUR_OF[p] .. math.floor(at / 60)
      local v = tonumber(all[i + 1]) or 0
      if SUMMED[p] then up[h] = (up[h] or 0) + v else up[h] = math.max(up[h] or 0, v) end
    elseif at < old_hour and (p == 'D' or p == 'F' or p == 'R' or p == 'L') then
      del[#del + 1] = f
    end
  end
  if #del > 0 then call_chunked('HDEL', t, del, 1) end
  for h, c in pairs(up) do
    local p = string.sub(h, 1, 1)
    if tonumber(string.sub(h, 2)) >= old_hour then
      if p == 'D' or p == 'F' then
        rcall('HINCRBY', t, h, c)
      elseif c > (tonumber(rcall('HGET', t, h)) or -1) then
        rcall('HSET', t, h, c)
      end
    end
  end
end

local function count_throughput(kind, now, n)
  local t = K.tput
  if n == 0 then return end
  local minute = math.floor(now / 60000)
  if rcall('HINCRBY', t, kind .. str(minute), n) ~= n then return end
  tput_trim(minute)
end

-- sample_depth records, once a minute, how many jobs of the queue are
-- ready and how long the oldest has waited (fields r and l of the hash),
-- from depth() (counted then: a pass over the ready lists' heads). It
-- returns whether jobs are ready, or nil when the minute had its sample.
local function sample_depth(now, depth)
  local t = K.tput
  local minute = math.floor(now / 60000)
  local rf = 'r' .. str(minute)
  if rcall('HEXISTS', t, rf) == 1 then return nil end
  local n, since = depth()
  local lat = 0
  if since > 0 and now > since then lat = now - since end
  rcall('HSET', t, rf, n, 'l' .. str(minute), lat)
  tput_trim(minute)
  return n > 0
end
