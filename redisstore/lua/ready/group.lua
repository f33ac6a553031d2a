-- ready/group.lua: the ready state of a queue with groups (groups/), and
-- priority levels (levels.lua) for its ungrouped jobs, for the contract in
-- ready/plain.lua. Until a grouped job is stored (the letter G of the
-- queue's shape) it serves a queue as ready/prio.lua does; from then on
-- claims rotate over the groups, the ungrouped jobs taking their turn as
-- the member ''.
--- @include levels groups/store groups/names groups/rotation groups/caps groups/holds groups/rate groups/take
--- @keys jobs lean

local function grouped()
  return has_shape('G')
end

local function ready_note(vals)
  levels_note(vals)
  if grouped() then return end
  for i = 1, #vals do
    if group_of(vals[i]) then
      set_shape('G', true)
      -- Claims rotate from now on: the ungrouped jobs take their turn.
      if levels_any() then group_activate('') end
      return
    end
  end
end

local function ready_push(ids, front, vals)
  if #ids == 0 then return false end
  if not grouped() and tonumber(M.pm or 0) == 0 then
    return call_chunked(front and 'LPUSH' or 'RPUSH', K.ready, ids, 1) == #ids
  end
  vals = vals or call_chunked_flat('HMGET', K.jobs, ids)
  local plain, pvals, by, order = {}, {}, {}, {}
  for i = 1, #ids do
    local g = group_of(vals[i])
    if g then
      if not by[g] then
        by[g] = {}
        order[#order + 1] = g
      end
      local l = by[g]
      l[#l + 1] = ids[i]
    else
      plain[#plain + 1], pvals[#pvals + 1] = ids[i], vals[i]
    end
  end
  local woke = false
  if #plain > 0 then
    if levels_push(plain, pvals, front) then woke = true end
    if grouped() and group_activate('') then woke = true end
  end
  if #order > 0 then
    groups_push(order, by, front)
    if groups_activate(order) then woke = true end
  end
  return woke
end

local function ready_pop(n, now)
  if grouped() then return take_grouped(n, now) end
  local ids = levels_pop(n)
  return ids, 0, #ids == n and levels_any()
end

-- ready_any: in a grouped queue, whether a member waits in the rotation
-- (a group at its cap has ready jobs no claim may take).
local function ready_any()
  if grouped() then return rotation_len() > 0 or levels_any() end
  return levels_any()
end

local function ready_count()
  local n = levels_len()
  if grouped() then n = n + GS.count() end
  return n
end

local function ready_remove(id, v)
  local g = group_of(v)
  if g then return GS.remove(g, id) end
  return levels_remove(id, v)
end

-- ready_page lists the levels (highest first) then the groups' jobs (by
-- group name, each group's first in first out: GS.page), or the reverse.
local function ready_page(off, cnt, rev)
  local nl = levels_len()
  local ng = grouped() and GS.count() or 0
  local ids = {}
  local function from_groups(o, c)
    if c > 0 and o < ng then GS.page(ids, o, c, rev) end
  end
  local function from_levels(o, c)
    if c <= 0 or o >= nl then return end
    local got = levels_page(o, c, rev)
    for i = 1, #got do ids[#ids + 1] = got[i] end
  end
  if rev then
    from_groups(off, cnt)
    from_levels(math.max(off - ng, 0), cnt - #ids)
  else
    from_levels(off, cnt)
    from_groups(math.max(off - nl, 0), cnt - #ids)
  end
  return ids, nl + ng
end

-- ready_heads reads the first job of each level and of each group, or,
-- past DEPTH_GROUPS groups, of the first DEPTH_GROUPS in the rotation
-- (those claimed from next): the cost does not grow with the number of
-- groups.
local function ready_heads()
  local out = levels_heads()
  if not grouped() then return out end
  local names
  if rcall('SCARD', K.g_known) <= DEPTH_GROUPS then
    names = rcall('SMEMBERS', K.g_known)
  else
    names = rcall('LRANGE', K.g_rot, 0, DEPTH_GROUPS - 1)
  end
  for _, g in ipairs(names) do
    if g ~= '' then out[#out + 1] = GS.first(g) end
  end
  return out
end

local function ready_take(n)
  local ids = levels_take(n)
  if #ids < n and grouped() then GS.take(ids, n) end
  return ids
end

local function ready_ended(ids)
  return grouped() and groups_capped() and groups_ended(call_chunked_flat('HMGET', K.jobs, ids))
end

local function ready_hold(id, untl)
  local g = grouped() and group_of(rcall('HGET', K.jobs, id))
  if not g then return false end
  group_hold(g, untl)
  return true
end

local function ready_sweep(now)
  if not grouped() then return end
  GR.sweep(now)
  -- Ungrouped ready jobs whose turn is missing get it back: jobs a
  -- release before the lean mark let in the plain way (lean.lua).
  if levels_any() then group_activate('') end
end

-- ready_config recounts the running counts (dropped without caps) and
-- puts every group with ready jobs back in the rotation: a raised cap may
-- give it room, and a claim drops it again if not.
local function ready_config()
  if not grouped() then return end
  groups_recount()
  local known = rcall('SMEMBERS', K.g_known)
  GS.recount(known)
  for i = 1, #known, 1000 do groups_activate({unpack(known, i, math.min(i + 999, #known))}) end
end

-- ready_lean: the lean ways of claims and acks serve a queue of groups
-- alone (the shape G, this variant's) without caps or rate limits per
-- group, as they serve a plain queue: the marks say so, and no group has
-- a cap of its own. (A queue with them keeps the long way: its claims
-- count running jobs and log the groups' claims, and its acks count them
-- down.) Its five marks come first in the reply. Holds of groups (a
-- handler's RateLimited), and a sorted set left by layout 1, the claim's
-- take_grouped sees as the long way's does.
local function ready_lean(rare, ...)
  if SHAPE ~= 'G' then return nil end
  local mk = rcall('HMGET', K.marks, 'sh', 'gmax', 'grate', 'pm', 'gv', ...)
  if mk[1] ~= 'G' or (tonumber(mk[2]) or 0) > 0 or (tonumber(mk[3]) or 0) > 0 then return nil end
  local held = rare and rcall('EXISTS', K.g_caps, unpack(rare)) or rcall('EXISTS', K.g_caps)
  if held > 0 then return nil end
  reset_groups()
  C.gmax, C.grate, C.gperiod, C.gwin, C.giv, C.gtol, C.glead = nil, nil, nil, nil, nil, nil, nil
  M.sh, M.pm, M.gv = 'G', mk[4], mk[5]
  return mk, 5
end

local function ready_lean_ok()
  return SHAPE == 'G' and M.sh == 'G' and (tonumber(C.grate) or 0) == 0 and not groups_capped()
end
