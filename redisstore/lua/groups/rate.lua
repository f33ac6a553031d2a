-- groups/rate.lua: the rate limit per group (QueueConfig.GroupRateLimit,
-- the setting grate, by the terms Go derived: store.RateTerms, settings
-- gwin, giv, gtol): in a sliding window at most grate claims of a group in
-- any window of gwin ms (the period plus the guard). g_rate maps a group
-- to its log: the claims it counts, "<sum>|<ms>:<count> <ms>:<count>
-- ...", oldest first; in the smooth mode (giv set) to "~<µs>", its pace's
-- next slot (as limits/on.lua keeps the queue's). A claim of the group
-- trims its log; Maintain forgets the logs of groups gone quiet
-- (GR.sweep, the mark gwc its cursor, gwm set while it finds
-- much to forget).
--- @keys g_rate
--- @conf grate gperiod gwin giv gtol glead
--- @marks gwc gwm

-- group_rate returns the limit and its window in ms (0 when none), and in
-- the smooth mode the interval, tolerance and lead in µs.
local function group_rate()
  return tonumber(C.grate) or 0, tonumber(C.gwin) or tonumber(C.gperiod) or 1000, tonumber(C.giv), tonumber(C.gtol) or 0,
    tonumber(C.glead) or 0
end

-- GR holds the functions of the claims' and the sweep's logs: fields of
-- one table, not locals of their own, as a script holds at most 200
-- locals (lua_test.go, localsRoom).
local GR = {}

-- GR.pace_room returns how many jobs the smooth mode lets group g give
-- at us (Unix µs), when it may give more (Unix µs) and its pace's slot,
-- as pace_room (limits/on.lua) does for the queue.
function GR.pace_room(g, us, iv, tol, lead)
  local v = rcall('HGET', K.g_rate, g)
  local tat = us
  if v and string.sub(v, 1, 1) == '~' then tat = math.max(tonumber(string.sub(v, 2)) or 0, us) end
  local ahead, early = tat - us, tol + lead
  if ahead > early then return 0, tat - early, tat end
  local k = math.floor((early - ahead) / iv) + 1
  return k, tat + k * iv - early, tat
end

-- GR.pace_note moves group g's pace on by n jobs from its slot tat.
function GR.pace_note(g, tat, iv, n)
  if n > 0 then rcall('HSET', K.g_rate, g, '~' .. str(tat + n * iv)) end
end

-- rate_log_parse splits a log into its sum and its entries' string.
local function rate_log_parse(v)
  local bar = v and string.find(v, '|', 1, true)
  if not bar then return 0, '' end -- none, or a pace's slot
  return tonumber(string.sub(v, 1, bar - 1)) or 0, string.sub(v, bar + 1)
end

-- GR.trim drops the entries of group g's log that left the window
-- at now, and returns the claims still counted, when the oldest of them
-- leaves the window (nil when none) and the log's entries left.
function GR.trim(g, now, period)
  local v = rcall('HGET', K.g_rate, g)
  local used, rest = rate_log_parse(v)
  local was, free = used, nil
  while rest ~= '' do
    local sp = string.find(rest, ' ', 1, true)
    local e = sp and string.sub(rest, 1, sp - 1) or rest
    local colon = string.find(e, ':', 1, true)
    local at = tonumber(string.sub(e, 1, colon - 1))
    if at + period > now then
      free = at + period
      break
    end
    used = used - tonumber(string.sub(e, colon + 1))
    rest = sp and string.sub(rest, sp + 1) or ''
  end
  if used <= 0 or rest == '' then
    if v then rcall('HDEL', K.g_rate, g) end
    return 0, nil, ''
  end
  if used ~= was then rcall('HSET', K.g_rate, g, str(used) .. '|' .. rest) end
  return used, free, rest
end

-- GR.note counts a claim of n jobs of group g at now, used and rest
-- being what GR.trim returned.
function GR.note(g, used, rest, now, n)
  if n <= 0 then return end
  local e = str(now) .. ':' .. str(n)
  if rest ~= '' then e = rest .. ' ' .. e end
  rcall('HSET', K.g_rate, g, str(used + n) .. '|' .. e)
end

-- GR.sweep forgets the logs of groups whose last counted claim
-- has left the window (all when the queue no longer has a rate per
-- group): only a claim of the group trims its log, so a group no longer
-- claimed from would keep its log for good, one field per group ever
-- seen. One pass looks at about RATE_SWEEP groups from the cursor (HSCAN's
-- COUNT: a hint): about 4 ms of Redis when all of them are dropped. It
-- runs once a minute, and at every Maintain pass (every few seconds)
-- while the last one dropped half a pass or more (the mark gwm): once a
-- minute swept up to 720,000 groups a day, and a queue that saw more new
-- groups grew its logs for good (an outside soak: 1,500 new groups a
-- minute).
function GR.sweep(now)
  local rate, period, iv = group_rate()
  local cursor = M.gwc or '0'
  local r = rcall('HSCAN', K.g_rate, cursor, 'COUNT', RATE_SWEEP)
  local kv, drop = r[2], {}
  for i = 1, #kv, 2 do
    local last = string.match(kv[i + 1], '(%d+):%d+$')
    local tat = string.match(kv[i + 1], '^~(%d+)$')
    if tat then
      if rate == 0 or not iv or tonumber(tat) <= now * 1000 then drop[#drop + 1] = kv[i] end
    elseif rate == 0 or iv or not last or tonumber(last) + period <= now then
      drop[#drop + 1] = kv[i]
    end
  end
  if #drop > 0 then call_chunked('HDEL', K.g_rate, drop, 1) end
  if r[1] ~= cursor then
    if r[1] == '0' then rcall('HDEL', K.marks, 'gwc') else rcall('HSET', K.marks, 'gwc', r[1]) end
  end
  local much = #drop * 2 >= RATE_SWEEP
  if much and not M.gwm then
    rcall('HSET', K.marks, 'gwm', '1')
  elseif not much and M.gwm then
    rcall('HDEL', K.marks, 'gwm')
  end
end
