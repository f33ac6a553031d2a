-- levels.lua: the priority levels of the ready state
-- (store.NewJob.Priority), for ready/prio.lua and ready/group.lua.
--
-- Jobs of priority 0 wait in the ready list itself; those of priority p in
-- the list of their level (ready_p3 ... ready_n3). The mark pm is a bitmask
-- of the other levels the queue ever used (bit p - MIN_PRIORITY), set when
-- a job of that priority is stored and never cleared, so that a claim
-- pops only the lists that may hold jobs. A job's priority is in its
-- value (envelope.go): "<enqueuedMs>,<maxRetries>p<priority>,...".
--- @include conf
--- @keys ready ready_p3 ready_p2 ready_p1 ready_n1 ready_n2 ready_n3 lean
--- @marks pm

local LEVEL_KEY = {[3] = 'ready_p3', [2] = 'ready_p2', [1] = 'ready_p1', [0] = 'ready',
  [-1] = 'ready_n1', [-2] = 'ready_n2', [-3] = 'ready_n3'}

-- level_list returns the list of the ready jobs of priority p.
local function level_list(p)
  return K[LEVEL_KEY[p]]
end

-- prio_of returns the priority of a stored value (0 for nil or none).
local function prio_of(v)
  if not v then return 0 end
  return tonumber(string.match(v, '^%d+,%d+p(%-?%d),')) or 0
end

-- levels returns the priorities whose lists may hold jobs, highest (the
-- first claimed) first.
local function levels()
  local m = tonumber(M.pm) or 0
  if m == 0 then return {0} end
  local out = {}
  for p = MAX_PRIORITY, MIN_PRIORITY, -1 do
    if p == 0 or bit.band(m, 2 ^ (p - MIN_PRIORITY)) ~= 0 then out[#out + 1] = p end
  end
  return out
end

-- level_lists returns the lists of levels(), in claim order.
local function level_lists()
  local keys = {}
  for _, p in ipairs(levels()) do keys[#keys + 1] = level_list(p) end
  return keys
end

-- levels_len returns how many jobs wait in the levels' lists.
local function levels_len()
  local n = 0
  for _, p in ipairs(levels()) do n = n + rcall('LLEN', level_list(p)) end
  return n
end

-- levels_any reports whether a level's list holds a job.
local function levels_any()
  for _, p in ipairs(levels()) do
    if rcall('LLEN', level_list(p)) > 0 then return true end
  end
  return false
end

-- levels_pop takes up to n IDs in claim order: the highest priority first,
-- first in first out within one; one LPOP per level tried.
local function levels_pop(n)
  local ids, k = {}, 0
  for _, p in ipairs(levels()) do
    local got = rcall('LPOP', level_list(p), SMALL[n - k] or str(n - k))
    if got then
      for i = 1, #got do ids[k + i] = got[i] end
      k = k + #got
      if k == n then break end
    end
  end
  return ids
end

-- levels_push puts ids (stored values vals) at the back of their levels'
-- lists (the front with front, the last ID first), and returns whether a list
-- was empty before.
local function levels_push(ids, vals, front)
  local by, order = {}, {}
  for i = 1, #ids do
    local p = prio_of(vals[i])
    if not by[p] then
      by[p] = {}
      order[#order + 1] = p
    end
    local l = by[p]
    l[#l + 1] = ids[i]
  end
  local woke = false
  for _, p in ipairs(order) do
    if call_chunked(front and 'LPUSH' or 'RPUSH', level_list(p), by[p], 1) == #by[p] then woke = true end
  end
  return woke
end

-- levels_note records the levels of jobs stored with values vals in pm,
-- and the letter P in the queue's shape.
local function levels_note(vals)
  local m = tonumber(M.pm) or 0
  local m2 = m
  for i = 1, #vals do
    local p = prio_of(vals[i])
    if p ~= 0 then m2 = bit.bor(m2, 2 ^ (p - MIN_PRIORITY)) end
  end
  if m2 ~= m then
    M.pm = str(m2)
    rcall('HSET', K.marks, 'pm', M.pm)
    set_shape('P', true)
  end
end

-- levels_page returns the IDs from offset off, at most cnt, of the levels'
-- lists one after the other (newest first with rev), and how many the
-- lists hold.
local function levels_page(off, cnt, rev)
  local lists = level_lists()
  if rev then
    local r = {}
    for i = #lists, 1, -1 do r[#r + 1] = lists[i] end
    lists = r
  end
  local ids, total, skip = {}, 0, off
  for _, l in ipairs(lists) do
    local len = rcall('LLEN', l)
    total = total + len
    local want = cnt - #ids
    if want > 0 and skip < len then
      local k = math.min(want, len - skip)
      if rev then
        local got = rcall('LRANGE', l, -(skip + k), -(skip + 1))
        for i = #got, 1, -1 do ids[#ids + 1] = got[i] end
      else
        for _, id in ipairs(rcall('LRANGE', l, skip, skip + k - 1)) do ids[#ids + 1] = id end
      end
      skip = 0
    else
      skip = math.max(skip - len, 0)
    end
  end
  return ids, total
end

-- levels_heads returns the first ID of every level's list that has one.
local function levels_heads()
  local out = {}
  for _, l in ipairs(level_lists()) do
    local h = rcall('LINDEX', l, 0)
    if h then out[#out + 1] = h end
  end
  return out
end

-- levels_take removes up to n IDs in claim order and returns them.
local function levels_take(n)
  return levels_pop(n)
end

-- levels_remove takes job id (stored value v) out of its level's list:
-- O(length), from the tail (the job most likely to be removed is a
-- recent one).
local function levels_remove(id, v)
  return rcall('LREM', level_list(prio_of(v)), -1, id)
end
