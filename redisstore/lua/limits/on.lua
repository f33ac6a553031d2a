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
-- The rate limit follows the terms Go derived (store.RateTerms, settings
-- rwin, riv and rtol). In a sliding window its log (rate_log) is a list of
-- "ms:count" entries, one per claim call that took jobs, oldest first; the
-- mark rs holds the sum of their counts. An entry stops counting once it
-- is rwin ms old (the period plus the guard): at most rate claims fall in
-- any window of rwin ms, wherever it starts. In the smooth mode (riv set)
-- the mark rtat is the pace's next slot in Unix µs (a GCRA's theoretical
-- arrival time): a job may start rtol µs before its slot and be claimed
-- rlead µs before that; each job taken moves the slot riv µs on.
--
--   limits_paced() -> bool  whether the claim was paced (the smooth mode)
--   limits_after(i, now_us) -> µs  how long job i of the claim waits
--                         before it starts (0 but in the smooth mode)
--- @keys unack rate_log
--- @conf maxrun rate period rwin riv rtol rlead
--- @marks rs rtat

local rate_used, pace_tat

-- rate_window is how long a claim counts, in ms.
local function rate_window()
  return tonumber(C.rwin) or tonumber(C.period) or 1000
end

-- pace_room returns how many of n jobs the smooth mode lets a claim take
-- at us, when trying again may take more (µs from now), and the slot the
-- claim starts from.
local function pace_room(n, us)
  local iv, early = tonumber(C.riv), (tonumber(C.rtol) or 0) + (tonumber(C.rlead) or 0)
  local tat = math.max(tonumber(M.rtat) or 0, us)
  local ahead = tat - us
  if ahead > early then return 0, tat - early - us, tat end
  local k = math.floor((early - ahead) / iv) + 1
  if k >= n then return n, 0, tat end
  return k, tat + k * iv - early - us, tat
end

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
    local head = rcall('LINDEX', K.rate_log, 0)
    if not head then
      used = 0
      break
    end
    local at, n = rate_entry(head)
    if at + period > now then
      free = at + period
      break
    end
    rcall('LPOP', K.rate_log)
    used = used - n
  end
  if used <= 0 then
    -- Nothing counted: whatever the log holds (it cannot) goes too.
    used = 0
    if was > 0 then rcall('DEL', K.rate_log) end
  end
  if used ~= was then rcall('HSET', K.marks, 'rs', str(used)) end
  return used, free
end

-- rate_live returns the claims the log counts at now, without changing it;
-- in the smooth mode the jobs the pace is ahead by.
local function rate_live(now)
  if C.riv then
    local ahead = (tonumber(M.rtat) or 0) - now_us()
    if ahead <= 0 then return 0 end
    return math.ceil(ahead / tonumber(C.riv))
  end
  local period = rate_window()
  local used = 0
  for _, e in ipairs(rcall('LRANGE', K.rate_log, 0, -1)) do
    local at, n = rate_entry(e)
    if at + period > now then used = used + n end
  end
  return used
end

local function limits_room(n, now, paused_ms)
  local retry_in, limited = 0, false
  rate_used, pace_tat = nil, nil
  if C.maxrun then
    -- Jobs in unack count against the cap.
    local room = tonumber(C.maxrun) - rcall('ZCOUNT', K.unack, '-inf', '(inf')
    if room < n then
      limited, n = true, math.max(room, 0)
      local e = earliest(K.unack)
      retry_in = paused_ms
      if e then retry_in = math.min(retry_in, math.max(e - now, 1)) end
    end
  end
  if C.rate and C.riv then
    local us = now_us()
    local k, wait_us
    k, wait_us, pace_tat = pace_room(n, us)
    if k < n then
      limited, n = true, k
      local r = math.max(math.ceil(wait_us / 1000), 1)
      if retry_in == 0 or r > retry_in then retry_in = r end
    end
  elseif C.rate then
    local period = rate_window()
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
  if pace_tat and n > 0 then
    rcall('HSET', K.marks, 'rtat', str(pace_tat + n * tonumber(C.riv)))
  end
  if not rate_used or n <= 0 then return end
  rcall('RPUSH', K.rate_log, str(now) .. ':' .. str(n))
  rcall('HSET', K.marks, 'rs', str(rate_used + n))
end

local function limits_paced() return pace_tat ~= nil end

local function limits_after(i, us)
  if not pace_tat then return 0 end
  return math.max(pace_tat - (tonumber(C.rtol) or 0) + (i - 1) * tonumber(C.riv) - us, 0)
end

local function limits_freed()
  -- read_fields leaves a setting the queue lacks false, not nil: only a
  -- MaxRunning cap has a place a job leaving unack frees.
  return C.maxrun and true or false
end
