-- limits/on.lua: the queue's MaxRunning cap and RateLimit (settings
-- maxrun, rate and period), for claims. The contract of the limits slot:
--
--   limits_room(n, now, paused_ms) -> n, retry_ms, limited
--                         how many of n jobs a claim may take now, when
--                         trying again may take more (0: on a signal), and
--                         whether a limit held jobs back
--   limits_note(n, now)   the claim took n jobs
--   limits_freed() -> bool  whether a job leaving unack may let a claim in
--
-- The rate limit's log (rate_log) is a list of "ms:count" entries, one per
-- claim call that took jobs, oldest first; the mark rs holds the sum of
-- their counts. An entry stops counting once it is period ms old: at most
-- rate claims fall in any window of period ms, wherever it starts.
--- @keys unack rate_log
--- @conf maxrun rate period
--- @marks rs

local rate_used

-- rate_entry splits a log entry into its time and count.
local function rate_entry(e)
  local sep = string.find(e, ':', 1, true)
  return tonumber(string.sub(e, 1, sep - 1)), tonumber(string.sub(e, sep + 1))
end

-- rate_trim drops the entries of the log that left the window at now,
-- keeping the mark rs in step, and returns the claims still counted and
-- when the oldest of them leaves the window (nil when none is counted).
local function rate_trim(now, period)
  local used = tonumber(M.rs) or 0
  local was = used
  local free
  while used > 0 do
    local head = redis.call('LINDEX', K.rate_log, 0)
    if not head then
      used = 0
      break
    end
    local at, n = rate_entry(head)
    if at + period > now then
      free = at + period
      break
    end
    redis.call('LPOP', K.rate_log)
    used = used - n
  end
  if used <= 0 then
    -- Nothing counted: whatever the log holds (it cannot) goes too.
    used = 0
    if was > 0 then redis.call('DEL', K.rate_log) end
  end
  if used ~= was then redis.call('HSET', K.marks, 'rs', str(used)) end
  return used, free
end

-- rate_live returns the claims the log counts at now, without changing it.
local function rate_live(now, period)
  local used = 0
  for _, e in ipairs(redis.call('LRANGE', K.rate_log, 0, -1)) do
    local at, n = rate_entry(e)
    if at + period > now then used = used + n end
  end
  return used
end

local function limits_room(n, now, paused_ms)
  local retry_in, limited = 0, false
  rate_used = nil
  if C.maxrun then
    -- Jobs in unack count against the cap.
    local room = tonumber(C.maxrun) - redis.call('ZCOUNT', K.unack, '-inf', '(inf')
    if room < n then
      limited, n = true, math.max(room, 0)
      local e = earliest(K.unack)
      retry_in = paused_ms
      if e then retry_in = math.min(retry_in, math.max(e - now, 1)) end
    end
  end
  if C.rate then
    local period = tonumber(C.period) or 1000
    local used, free = rate_trim(now, period)
    rate_used = used
    local left = tonumber(C.rate) - used
    if left < n then
      limited, n = true, math.max(left, 0)
      local r = period -- a limit below the claim with nothing counted yet
      if free then r = math.max(free - now, 1) end
      if retry_in == 0 or r > retry_in then retry_in = r end
    end
  end
  return n, retry_in, limited
end

local function limits_note(n, now)
  if not rate_used or n <= 0 then return end
  redis.call('RPUSH', K.rate_log, str(now) .. ':' .. str(n))
  redis.call('HSET', K.marks, 'rs', str(rate_used + n))
end

local function limits_freed()
  return C.maxrun ~= nil
end
