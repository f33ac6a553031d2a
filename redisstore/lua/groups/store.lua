-- groups/store.lua: where a grouped queue keeps its groups' ready jobs
-- (store.NewJob.Group), for ready/group.lua.
--
-- Each group's ready jobs are a list of their IDs, first in first out,
-- claimed from the left: the key K.g_ready .. ':' .. group (the key family
-- of g_ready, keys.go), so a claim takes a group's jobs with one LPOP.
-- The marks' field gn counts the jobs in those lists (QueueStats reads it
-- instead of a length per group); g_known holds the groups that may have
-- ready jobs. A job's group is in its value (envelope.go):
-- "<enqueuedMs>,<maxRetries>g<group>,...".
--
-- Layout 1 (hopper v0.1.0) kept them in one sorted set, g_ready itself,
-- every member "<group>\0<order><ID>" with score 0: ordered by group name,
-- then by order, a 13-character key that counts up as jobs are pushed to
-- the back ('1' and a counter, the mark gs) and down as they are pushed
-- to the front ('0' and the complement of the mark gf); a group name is
-- printable ASCII without commas, and '\0' sorts before any of it. A
-- queue pushes to its lists once its marks hold gv = 'l', which a
-- layout-2 Store writes as it registers the queue and Migrate's step
-- 1 -> 2 writes before it moves the sorted set's jobs into the lists
-- (layout_migrate_groups.go); until then it pushes to the sorted set,
-- which releases of layout 1 read. Reads take a group's jobs from the
-- sorted set first, while it holds any (they were pushed before the
-- mark, or by a producer of an older release), then from its list.
--- @keys g_ready g_known marks
--- @marks gv

-- Z_ANY caches, for one call, whether the sorted set holds any job
-- (zset_any); nil until asked.
local Z_ANY

local function reset_groups()
  Z_ANY = nil
end

-- zset_any reports whether the sorted set g_ready holds jobs: one EXISTS
-- a call. (Skipping it while the set's order counters are absent, which a
-- push to it raises, measured no better: the two more fields every
-- script's read of the marks then takes cost what the EXISTS did.)
local function zset_any()
  if Z_ANY == nil then Z_ANY = rcall('EXISTS', K.g_ready) == 1 end
  return Z_ANY
end

-- group_key returns the key of group g's list.
local function group_key(g)
  return K.g_ready .. ':' .. g
end

-- lists_count adds d to the count of jobs in the lists.
local function lists_count(d)
  if d ~= 0 then rcall('HINCRBY', K.marks, 'gn', SMALL[d] or str(d)) end
end

-- GS holds what the colder paths call (a claim's count of what it took,
-- counts, listings, deletions): fields of one table, not locals of their
-- own, as a script holds at most 200 locals (lua_test.go, localsRoom).
local GS = {}

-- GS.counted counts out the d jobs a claim took from the lists.
function GS.counted(d)
  lists_count(-d)
end

-- ORDER_PAD pads an order counter to twelve digits.
local ORDER_PAD = {'00000000000', '0000000000', '000000000', '00000000', '0000000', '000000', '00000',
  '0000', '000', '00', '0', ''}

-- group_of returns the group of a stored value, or nil.
local function group_of(v)
  if not v then return nil end
  return string.match(v, '^%d+,%d+g([^,]+),')
end

-- group_range returns the bounds of group g's members in g_ready, for
-- ZRANGE BYLEX.
local function group_range(g)
  return '[' .. g .. '\0', '(' .. g .. '\1'
end

-- DIGIT holds the digits' strings, for orders.
local DIGIT = {[0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'}

-- orders returns n order keys of the sorted set for jobs pushed to the
-- back (to the front with front), in push order. It formats a number once
-- per thousand keys and writes the last three digits from DIGIT:
-- formatting costs about two thousand instructions (see base.lua), a
-- grouped batch paid it per job.
local function orders(n, front)
  local last = rcall('HINCRBY', K.marks, front and 'gf' or 'gs', n)
  local out = {}
  local head, hs = -1, nil
  for i = 1, n do
    local c = last - n + i
    if front then c = 999999999999 - c end
    local hi, lo = math.floor(c / 1000), c % 1000
    if hi ~= head then
      head = hi
      local s = string.format('%d', hi)
      hs = (front and '0' or '1') .. ORDER_PAD[#s + 3] .. s
    end
    out[i] = hs .. DIGIT[math.floor(lo / 100)] .. DIGIT[math.floor(lo / 10) % 10] .. DIGIT[lo % 10]
  end
  return out
end

-- groups_push puts the IDs by[g] at the back of each group g of order
-- (at the front with front: the last ID first). To the lists: one push a
-- group, one HINCRBY and one SADD. To the sorted set (a queue without the
-- mark): one HINCRBY, one ZADD and one SADD whatever the number of
-- groups, one range of order keys serving them all. A push to the front
-- of a group whose jobs are in the sorted set as well (layout 1's, which
-- reads take first) goes to the set's front, so that those jobs come
-- first (a job a worker hands back, or whose lease ran out, while a
-- migration is under way).
local function groups_push(order, by, front)
  local n, zorder = 0, order
  if M.gv == 'l' then
    zorder = nil
    local cmd = front and 'LPUSH' or 'RPUSH'
    for _, g in ipairs(order) do
      local lo, hi
      if front and zset_any() then lo, hi = group_range(g) end
      if lo and rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', 0, 1)[1] then
        zorder = zorder or {}
        zorder[#zorder + 1] = g
      else
        local ids = by[g]
        n = n + #ids
        call_chunked(cmd, group_key(g), ids, 1)
      end
    end
    lists_count(n)
    call_chunked('SADD', K.g_known, order, 1)
    if not zorder then return end
    n = 0
  end
  for _, g in ipairs(zorder) do n = n + #by[g] end
  local keys = orders(n, front)
  local z, k = {}, 0
  for _, g in ipairs(zorder) do
    local ids = by[g]
    for i = 1, #ids do
      k = k + 1
      z[2 * k - 1] = 0
      z[2 * k] = g .. '\0' .. keys[k] .. ids[i]
    end
  end
  call_chunked('ZADD', K.g_ready, z, 2)
  call_chunked('SADD', K.g_known, zorder, 1)
  Z_ANY = true
end

-- group_pop takes the first k jobs of group g, appends their IDs to the
-- list into (which holds at entries) and returns how many it took: from
-- its list, one LPOP (after the sorted set's, while that holds any).
-- What it takes from the sorted set it leaves there, in taken, for
-- group_drop: a claim visits a group once a pass, and removes what every
-- group of the pass gave in one call. It returns as well how many it took
-- from the list, which the claim counts out (GS.counted). (The limit goes
-- as a string: a number passed to redis.call is formatted with %.17g, a
-- few thousand instructions.)
local function group_pop(g, k, taken, into, at)
  local got = 0
  if M.gv ~= 'l' or zset_any() then
    local lo, hi = group_range(g)
    local m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', '0', SMALL[k] or str(k))
    got = #m
    if got > 0 then
      local skip, sub = #g + 15, string.sub
      for i = 1, got do into[at + i] = sub(m[i], skip) end
      local n = #taken
      for i = 1, got do taken[n + i] = m[i] end
    end
    if got == k or M.gv ~= 'l' then return got end
  end
  local want = k - got
  local l = rcall('LPOP', group_key(g), SMALL[want] or str(want))
  if not l then return got end
  at = at + got
  for i = 1, #l do into[at + i] = l[i] end
  return got + #l, #l
end

-- group_drop removes the members group_pop left in taken.
local function group_drop(taken)
  if #taken > 0 then call_chunked('ZREM', K.g_ready, taken, 1) end
end

-- member_id returns the group and ID of a member of g_ready.
local function member_id(m)
  local z = string.find(m, '\0', 1, true)
  return string.sub(m, 1, z - 1), string.sub(m, z + 14)
end

-- GS.len returns how many jobs of group g are ready.
function GS.len(g)
  local n = 0
  if M.gv == 'l' then n = rcall('LLEN', group_key(g)) end
  if M.gv ~= 'l' or zset_any() then
    local lo, hi = group_range(g)
    n = n + rcall('ZLEXCOUNT', K.g_ready, lo, hi)
  end
  return n
end

-- GS.first returns the ID of group g's first ready job, or nil.
function GS.first(g)
  if M.gv ~= 'l' or zset_any() then
    local lo, hi = group_range(g)
    local m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', 0, 1)[1]
    if m or M.gv ~= 'l' then return m and string.sub(m, #g + 15) end
  end
  return rcall('LINDEX', group_key(g), 0) or nil
end

-- GS.remove takes job id out of group g: a walk over the group's jobs
-- (as a ready list's LREM walks its list). It returns 1, or 0 when the
-- group does not hold it.
function GS.remove(g, id)
  if M.gv ~= 'l' or zset_any() then
    local lo, hi = group_range(g)
    local skip = #g + 15
    local off = 0
    while true do
      local m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', off, 1000)
      for i = 1, #m do
        if string.sub(m[i], skip) == id then return rcall('ZREM', K.g_ready, m[i]) end
      end
      if #m < 1000 then break end
      off = off + #m
    end
    if M.gv ~= 'l' then return 0 end
  end
  local n = rcall('LREM', group_key(g), 1, id)
  lists_count(-n)
  return n
end

-- GS.count returns how many grouped jobs are ready: the lists' count
-- (gn) and the sorted set's.
function GS.count()
  local n = 0
  if M.gv == 'l' then n = math.max(tonumber(rcall('HGET', K.marks, 'gn')) or 0, 0) end
  if M.gv ~= 'l' or zset_any() then n = n + rcall('ZCARD', K.g_ready) end
  return n
end

-- GS.slice appends to ids up to c IDs of group g's ready jobs from
-- position o (from its last job, with rev), its sorted set's first, then
-- its list's, and returns how many jobs the group holds.
function GS.slice(ids, g, o, c, rev)
  local zc, lc, lo, hi = 0, 0, nil, nil
  if M.gv ~= 'l' or zset_any() then
    lo, hi = group_range(g)
    zc = rcall('ZLEXCOUNT', K.g_ready, lo, hi)
  end
  if M.gv == 'l' then lc = rcall('LLEN', group_key(g)) end
  local skip = #g + 15
  local function from_z(zo, zn)
    zn = math.min(zn, zc - zo)
    if zn <= 0 then return end
    local m
    if rev then
      m = rcall('ZRANGE', K.g_ready, hi, lo, 'BYLEX', 'REV', 'LIMIT', zo, zn)
    else
      m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', zo, zn)
    end
    for i = 1, #m do ids[#ids + 1] = string.sub(m[i], skip) end
  end
  local function from_l(lo2, ln)
    ln = math.min(ln, lc - lo2)
    if ln <= 0 then return end
    local m
    if rev then
      m = rcall('LRANGE', group_key(g), -(lo2 + ln), -(lo2 + 1))
      for i = #m, 1, -1 do ids[#ids + 1] = m[i] end
    else
      m = rcall('LRANGE', group_key(g), lo2, lo2 + ln - 1)
      for i = 1, #m do ids[#ids + 1] = m[i] end
    end
  end
  if o < zc + lc and c > 0 then
    local stop = #ids + c
    if rev then
      from_l(o, c)
      from_z(math.max(o - lc, 0), stop - #ids)
    else
      from_z(o, c)
      from_l(math.max(o - zc, 0), stop - #ids)
    end
  end
  return zc + lc
end

-- GS.take removes up to n grouped ready jobs, appending their IDs to ids:
-- the sorted set's first, then the lists' (of the groups known, in no
-- order).
function GS.take(ids, n)
  if M.gv ~= 'l' or zset_any() then
    local m = rcall('ZRANGE', K.g_ready, 0, n - #ids - 1)
    if #m > 0 then call_chunked('ZREM', K.g_ready, m, 1) end
    for i = 1, #m do
      local _, id = member_id(m[i])
      ids[#ids + 1] = id
    end
  end
  if #ids >= n or M.gv ~= 'l' then return end
  local taken = 0
  for _, g in ipairs(rcall('SMEMBERS', K.g_known)) do
    local want = n - #ids
    if want <= 0 then break end
    local l = rcall('LPOP', group_key(g), SMALL[want] or str(want))
    if l then
      for i = 1, #l do ids[#ids + 1] = l[i] end
      taken = taken + #l
    end
  end
  lists_count(-taken)
end

-- GS.recount sets the lists' count (gn) from the lengths of the lists of
-- the groups known: SetQueueConfig runs it (ready_config), so that a count
-- gone wrong heals.
function GS.recount(known)
  if M.gv ~= 'l' then return end
  local n = 0
  for _, g in ipairs(known) do n = n + rcall('LLEN', group_key(g)) end
  rcall('HSET', K.marks, 'gn', str(n))
end

-- GS.move moves up to n jobs of the sorted set, from its end, to the
-- front of their groups' lists (Migrate's step 1 -> 2, groups_move.lua),
-- and returns how many.
function GS.move(n)
  -- The last members first: each group's last job first, so one LPUSH of
  -- a group's IDs in this order leaves its first job at the head.
  local m = rcall('ZRANGE', K.g_ready, '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, n)
  if #m == 0 then return 0 end
  local by, order = {}, {}
  for i = 1, #m do
    local g, id = member_id(m[i])
    if not by[g] then
      by[g] = {}
      order[#order + 1] = g
    end
    local l = by[g]
    l[#l + 1] = id
  end
  for _, g in ipairs(order) do call_chunked('LPUSH', group_key(g), by[g], 1) end
  call_chunked('SADD', K.g_known, order, 1)
  lists_count(#m)
  call_chunked('ZREM', K.g_ready, m, 1)
  return #m
end
