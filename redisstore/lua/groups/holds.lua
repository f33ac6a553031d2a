-- groups/holds.lua: groups held out of the rotation until a time (their
-- rate limit used up, or a handler's RateLimited): g_holds maps a group to
-- when its hold ends; the first claim after puts it back.
--- @include groups/rotation
--- @keys g_holds

-- group_hold keeps group g out of the rotation until ms untl (a hold in
-- force is never shortened).
local function group_hold(g, untl)
  rcall('ZADD', K.g_holds, 'GT', untl, g)
end

-- UNHOLD_MAX is the most groups one call puts back in the rotation: when
-- thousands of groups' holds end at once (a rate limit per group that a
-- burst over every tenant used up), one claim put them all back, and held
-- the server for 66 to 153 ms at 10,000 to 50,000 groups (an outside
-- trial). The rest wait for the next calls, which come at once: a hold
-- that ended and remains makes the claim's RetryIn 1 ms (holds_retry).
local UNHOLD_MAX = 256

-- groups_unhold puts the groups whose hold ended by now back in the
-- rotation, the earliest UNHOLD_MAX of them, and returns whether holds
-- remain; with none the caller knows there are none.
local function groups_unhold(now, none)
  if none or rcall('ZCARD', K.g_holds) == 0 then return false end
  local over = rcall('ZRANGEBYSCORE', K.g_holds, '-inf', now, 'LIMIT', 0, UNHOLD_MAX)
  if #over == 0 then return true end
  call_chunked('ZREM', K.g_holds, over, 1)
  for _, g in ipairs(over) do group_activate(g) end
  return rcall('ZCARD', K.g_holds) > 0
end

-- holds_held returns the set of members that are held at now.
local function holds_held(members, now)
  local held = {}
  local untl = call_chunked_flat('ZMSCORE', K.g_holds, members)
  for i, g in ipairs(members) do
    if untl[i] and tonumber(untl[i]) > now then held[g] = true end
  end
  return held
end

-- holds_retry returns the ms until the earliest hold ends (at least 1), or
-- 0 when none is left.
local function holds_retry(now)
  local e = earliest(K.g_holds)
  if e then return math.max(e - now, 1) end
  return 0
end
