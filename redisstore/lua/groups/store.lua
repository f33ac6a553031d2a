-- groups/store.lua: where a grouped queue keeps its groups' ready jobs
-- (store.NewJob.Group), for ready/group.lua.
--
-- One sorted set, g_ready, holds every group's ready jobs, all with score
-- 0, as "<group>\0<order><ID>": ordered by group name, then by order, a
-- 13-character key that counts up as jobs are pushed to the back ('1' and
-- a counter, the mark gs) and down as they are pushed to the front ('0' and
-- the complement of the mark gf). So a group's jobs are one range of the
-- set, first in first out; a group name is printable ASCII without
-- commas, and '\0' sorts before any of it. g_known holds the groups that
-- may have ready jobs. A job's group is in its value (envelope.go):
-- "<enqueuedMs>,<maxRetries>g<group>,...".
--- @keys g_ready g_known marks

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

-- orders returns n order keys for jobs pushed to the back (to the front
-- with front), in push order. It formats a number once per thousand keys
-- and writes the last three digits from DIGIT: formatting costs about two
-- thousand instructions (see base.lua), a grouped batch paid it per job.
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
-- (at the front with front: the last ID first), in one HINCRBY, one ZADD
-- and one SADD whatever the number of groups: one range of order keys
-- serves them all, each group taking its IDs' keys in turn.
local function groups_push(order, by, front)
  local n = 0
  for _, g in ipairs(order) do n = n + #by[g] end
  local keys = orders(n, front)
  local z, k = {}, 0
  for _, g in ipairs(order) do
    local ids = by[g]
    for i = 1, #ids do
      k = k + 1
      z[2 * k - 1] = 0
      z[2 * k] = g .. '\0' .. keys[k] .. ids[i]
    end
  end
  call_chunked('ZADD', K.g_ready, z, 2)
  call_chunked('SADD', K.g_known, order, 1)
end

-- group_pop takes the first k jobs of group g, appends their IDs to the
-- list into (which holds at entries) and returns how many it took. With
-- taken (a table), it leaves their members there for group_drop instead
-- of removing them itself: a claim visits a group once a pass, and
-- removes what every group of the pass gave in one call. (The IDs go
-- straight into the claim's list, and the limit as a string: a number
-- passed to redis.call is formatted with %.17g, a list of a group's IDs
-- made and copied, a few thousand instructions a group.)
local function group_pop(g, k, taken, into, at)
  local lo, hi = group_range(g)
  local m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', '0', SMALL[k] or str(k))
  local got = #m
  if got == 0 then return 0 end
  local skip, sub = #g + 15, string.sub
  for i = 1, got do into[at + i] = sub(m[i], skip) end
  if taken then
    local n = #taken
    for i = 1, got do taken[n + i] = m[i] end
  else
    call_chunked('ZREM', K.g_ready, m, 1)
  end
  return got
end

-- group_drop removes the members group_pop left in taken.
local function group_drop(taken)
  if #taken > 0 then call_chunked('ZREM', K.g_ready, taken, 1) end
end

-- group_len returns how many jobs of group g are ready.
local function group_len(g)
  local lo, hi = group_range(g)
  return rcall('ZLEXCOUNT', K.g_ready, lo, hi)
end

-- group_first returns the ID of group g's first ready job, or nil.
local function group_first(g)
  local lo, hi = group_range(g)
  local m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', 0, 1)[1]
  return m and string.sub(m, #g + 15)
end

-- group_remove takes job id out of group g: a walk over the group's jobs
-- (as a ready list's LREM walks its list). It returns 1, or 0 when the
-- group does not hold it.
local function group_remove(g, id)
  local lo, hi = group_range(g)
  local skip = #g + 15
  local off = 0
  while true do
    local m = rcall('ZRANGE', K.g_ready, lo, hi, 'BYLEX', 'LIMIT', off, 1000)
    for i = 1, #m do
      if string.sub(m[i], skip) == id then return rcall('ZREM', K.g_ready, m[i]) end
    end
    if #m < 1000 then return 0 end
    off = off + #m
  end
end

-- member_id returns the group and ID of a member of g_ready.
local function member_id(m)
  local z = string.find(m, '\0', 1, true)
  return string.sub(m, 1, z - 1), string.sub(m, z + 14)
end
