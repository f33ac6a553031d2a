-- lib_rate.lua: the sliding window of a queue's rate limit, for claim.lua
-- and stats.lua. The log is a list of "ms:count" entries, one per claim
-- call that took jobs, oldest first; the config field "rs" holds the sum
-- of their counts. An entry stops counting once it is period ms old: at
-- most limit claims fall in any window of period ms, wherever it starts.

-- rate_entry splits a log entry into its time and count.
local function rate_entry(e)
  local sep = string.find(e, ':', 1, true)
  return tonumber(string.sub(e, 1, sep - 1)), tonumber(string.sub(e, sep + 1))
end

-- rate_trim_in drops the entries of log that left the window at now,
-- keeping field of hash h (the sum of the counts) in step, and returns the
-- claims still counted and when the oldest of them leaves the window (nil
-- when none is counted).
local function rate_trim_in(log, h, field, used, now, period)
  used = tonumber(used) or 0
  local was = used
  local free
  while used > 0 do
    local head = redis.call('LINDEX', log, 0)
    if not head then
      used = 0
      break
    end
    local at, n = rate_entry(head)
    if at + period > now then
      free = at + period
      break
    end
    redis.call('LPOP', log)
    used = used - n
  end
  if used <= 0 then
    -- Nothing counted: whatever the log holds (it cannot) goes too.
    used = 0
    if was > 0 then redis.call('DEL', log) end
  end
  if used ~= was then
    if used == 0 and field ~= 'rs' then
      redis.call('HDEL', h, field)
    else
      redis.call('HSET', h, field, str(used))
    end
  end
  return used, free
end

-- rate_trim is rate_trim_in for the queue's own limit: its sum is the
-- config field "rs".
local function rate_trim(log, conf, used, now, period)
  return rate_trim_in(log, conf, 'rs', used, now, period)
end

-- rate_note_in counts a claim of n jobs at now in log and field of hash
-- h, used being what rate_trim_in returned.
local function rate_note_in(log, h, field, used, now, n)
  if n <= 0 then return end
  redis.call('RPUSH', log, str(now) .. ':' .. str(n))
  redis.call('HSET', h, field, str(used + n))
end

-- rate_note counts a claim of n jobs at now in the queue's log, used
-- being what rate_trim returned.
local function rate_note(log, conf, used, now, n)
  rate_note_in(log, conf, 'rs', used, now, n)
end

-- rate_live returns the claims log counts at now, without changing it.
local function rate_live(log, now, period)
  local used = 0
  for _, e in ipairs(redis.call('LRANGE', log, 0, -1)) do
    local at, n = rate_entry(e)
    if at + period > now then used = used + n end
  end
  return used
end
