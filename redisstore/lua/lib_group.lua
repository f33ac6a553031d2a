-- lib_group.lua: groups of a queue (store.NewJob.Group), for every script
-- that adds to, takes from or reads ready (needs lib_prio.lua).
--
-- A grouped job waits in its group's list {p:q}:g:<group> instead of the
-- ready list. Beside them, in the queue's slot:
--
--   {p:q}:gq  list  the rotation: groups due a turn, '' standing for the
--                   queue's ungrouped jobs; each at most once
--   {p:q}:ga  set   the members of gq
--   {p:q}:gr  hash  group -> its jobs in unack
--   {p:q}:gk  set   groups whose list may hold jobs (for listing)
--   {p:q}:gl  hash  group -> its own cap (store.Groups.SetGroupLimit)
--
-- and the config fields gm (set once the queue saw a grouped job: claims
-- rotate from then on) and gmax (the cap per group). A member of gq may
-- have lost its jobs or its room since it was added: the claim that
-- meets it drops it. A group with ready jobs and room is always in gq:
-- it joins when jobs are pushed to it, when one of its jobs leaves unack
-- and when its cap is raised, and leaves only when a claim finds it empty
-- or at its cap. The job's group is in its value:
-- "<enqueuedMs>,<maxRetries>g<group>,...".

-- gkey returns the key of the queue's group structure suffix, from its
-- ready list's key "{p:q}:r".
local function gkey(ready, suffix)
  return string.sub(ready, 1, -2) .. suffix
end

-- glist returns the key of group g's ready list.
local function glist(ready, g)
  return string.sub(ready, 1, -2) .. 'g:' .. g
end

-- group_of returns the group of a stored value, or nil.
local function group_of(v)
  if not v then return nil end
  return string.match(v, '^%d+,%d+g([^,]+),')
end

-- group_of_new returns the group of a value as an enqueue sends it, or nil.
local function group_of_new(v)
  return string.match(v, '^%d+g([^,]+),')
end

-- ready_list_of returns the list a ready job with stored value v is in.
local function ready_list_of(ready, v)
  local g = group_of(v)
  if g then return glist(ready, g) end
  return ready_at(ready, prio_of(v))
end

-- group_activate puts g ('' for the ungrouped jobs) in the rotation
-- unless it is there; it returns true when it added it.
local function group_activate(ready, g)
  if redis.call('SADD', gkey(ready, 'ga'), g) == 1 then
    redis.call('RPUSH', gkey(ready, 'gq'), g)
    return true
  end
  return false
end

-- groups_on marks the queue grouped (config hash conf, field gm) when it
-- is not yet (gm is the field's value), the ungrouped jobs joining the
-- rotation.
local function groups_on(ready, conf, gm, pm)
  if gm then return end
  redis.call('HSET', conf, 'gm', '1')
  if ready_len(ready, pm) > 0 then group_activate(ready, '') end
end

-- push_group puts ids at the back (front with front) of group g's list
-- and g in the rotation; it returns true when g joined the rotation (a
-- group already in it is being claimed from).
local function push_group(ready, g, ids, front)
  call_chunked(front and 'LPUSH' or 'RPUSH', glist(ready, g), ids, 1)
  redis.call('SADD', gkey(ready, 'gk'), g)
  return group_activate(ready, g)
end

-- group_caps returns a function giving group g's cap (0 for none): its
-- own, else the queue's gmax. It reads the own caps only when there are.
local function group_caps(ready, gmax)
  local def = tonumber(gmax) or 0
  local gl = gkey(ready, 'gl')
  if redis.call('HLEN', gl) == 0 then
    return function() return def end
  end
  local seen = {}
  return function(g)
    local c = seen[g]
    if c == nil then
      c = tonumber(redis.call('HGET', gl, g)) or def
      seen[g] = c
    end
    return c
  end
end

-- take_grouped takes up to n ready IDs, rotating over the members of the
-- rotation: one job from each in turn, a group only while it has room
-- under its cap, whose running count it raises. One LPOP of the rotation
-- per pass; per job an LPOP and an LLEN of its group's list (and its
-- running count, read once per group).
local function take_grouped(ready, pm, n, gmax)
  local gq, ga, gr, gk = gkey(ready, 'gq'), gkey(ready, 'ga'), gkey(ready, 'gr'), gkey(ready, 'gk')
  local cap = group_caps(ready, gmax)
  local ids, run, took = {}, {}, {}
  while #ids < n do
    local members = redis.call('LPOP', gq, n - #ids)
    if not members then break end
    local back, out = {}, {}
    for _, g in ipairs(members) do
      local keep = false
      if g == '' then
        local got = pop_ready(ready, pm, 1)
        if got then
          ids[#ids + 1] = got[1]
          keep = ready_len(ready, pm) > 0
        end
      else
        local r = run[g]
        if r == nil then r = tonumber(redis.call('HGET', gr, g)) or 0 end
        local c = cap(g)
        if c == 0 or r < c then
          local key = glist(ready, g)
          local id = redis.call('LPOP', key)
          if id then
            ids[#ids + 1] = id
            r = r + 1
            took[g] = true
            local left = redis.call('LLEN', key)
            if left == 0 then redis.call('SREM', gk, g) end
            keep = left > 0 and (c == 0 or r < c)
          else
            redis.call('SREM', gk, g)
          end
        end
        run[g] = r
      end
      if keep then back[#back + 1] = g else out[#out + 1] = g end
    end
    if #out > 0 then call_chunked('SREM', ga, out, 1) end
    if #back > 0 then call_chunked('RPUSH', gq, back, 1) end
  end
  local h = {}
  for g in pairs(took) do
    h[#h + 1] = g
    h[#h + 1] = run[g]
  end
  if #h > 0 then call_chunked('HSET', gr, h, 2) end
  return ids
end

-- groups_ended lowers the running counts of the groups whose jobs left
-- unack (vals: their stored values) and puts those with ready jobs back
-- in the rotation. It returns true when one joined it (a claim is worth
-- waking).
local function groups_ended(ready, vals)
  local by = {}
  for i = 1, #vals do
    local g = group_of(vals[i])
    if g then by[g] = (by[g] or 0) + 1 end
  end
  local gr, woke = gkey(ready, 'gr'), false
  for g, k in pairs(by) do
    if redis.call('HINCRBY', gr, g, -k) <= 0 then redis.call('HDEL', gr, g) end
    if redis.call('LLEN', glist(ready, g)) > 0 and group_activate(ready, g) then woke = true end
  end
  return woke
end

-- group_names returns the groups whose lists may hold jobs, sorted.
local function group_names(ready)
  local names = redis.call('SMEMBERS', gkey(ready, 'gk'))
  table.sort(names)
  return names
end

-- grouped_len returns how many grouped jobs are ready.
local function grouped_len(ready)
  local n = 0
  for _, g in ipairs(redis.call('SMEMBERS', gkey(ready, 'gk'))) do
    n = n + redis.call('LLEN', glist(ready, g))
  end
  return n
end

-- push_ready puts ids, jobs that became ready, at the back of their lists
-- (at the front with front, for one ID), in order within each list: a
-- group's, or their priority level's. It reads the jobs' values only when
-- the queue has priority levels (pm) or groups (gm). It returns true when
-- a list they went to was empty or a group joined the rotation (the cue to
-- wake idle workers).
local function push_ready(ready, jobs, pm, gm, ids, front)
  local cmd = front and 'LPUSH' or 'RPUSH'
  if #ids == 0 then return false end
  if not has_levels(pm) and not gm then return call_chunked(cmd, ready, ids, 1) == #ids end
  local vals = call_chunked_flat('HMGET', jobs, ids)
  local by, order = {}, {}
  for i = 1, #ids do
    local g = group_of(vals[i])
    local k = g and ('g' .. g) or prio_of(vals[i])
    local b = by[k]
    if not b then
      b = {g = g, p = prio_of(vals[i]), ids = {}}
      by[k] = b
      order[#order + 1] = k
    end
    b.ids[#b.ids + 1] = ids[i]
  end
  local woke = false
  for _, k in ipairs(order) do
    local b = by[k]
    if b.g then
      if push_group(ready, b.g, b.ids, front) then woke = true end
    else
      if call_chunked(cmd, ready_at(ready, b.p), b.ids, 1) == #b.ids then woke = true end
      if gm and group_activate(ready, '') then woke = true end
    end
  end
  return woke
end
