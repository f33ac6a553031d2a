-- groups/caps.lua: how many of a group's jobs may run at once
-- (QueueConfig.GroupMaxRunning, the setting gmax, and a group's own cap
-- in g_caps, store.Groups.SetGroupLimit), for ready/group.lua. g_running
-- counts each group's jobs in unack, kept only while the queue has caps:
-- recounted from unack when the first cap comes, dropped with the last.
--- @include groups/store groups/rotation
--- @keys g_running g_caps unack jobs
--- @conf gmax

-- group_caps returns a function giving group g's cap (0 for none): its
-- own, else the queue's gmax; and whether any group may have a cap. It
-- reads the own caps only when there are; with none the caller knows
-- there are none.
local function group_caps(none)
  local def = tonumber(C.gmax) or 0
  if none or rcall('HLEN', K.g_caps) == 0 then
    return function() return def end, def > 0
  end
  local seen = {}
  return function(g)
    local c = seen[g]
    if c == nil then
      c = tonumber(rcall('HGET', K.g_caps, g)) or def
      seen[g] = c
    end
    return c
  end, true
end

-- groups_capped reports whether the queue has a cap per group or a group
-- with a cap of its own: only then are running counts kept.
local function groups_capped()
  return (tonumber(C.gmax) or 0) > 0 or rcall('HLEN', K.g_caps) > 0
end

-- running_now counts the jobs in unack of each group, from the unack set
-- and the jobs' values: O(jobs running).
local function running_now()
  local members = rcall('ZRANGE', K.unack, '-inf', '(inf', 'BYSCORE')
  local counts = {}
  if #members == 0 then return counts end
  local ids = {}
  for i = 1, #members do ids[i] = id_of(members[i]) end
  local vals = call_chunked_flat('HMGET', K.jobs, ids)
  for i = 1, #vals do
    local g = group_of(vals[i])
    if g then counts[g] = (counts[g] or 0) + 1 end
  end
  return counts
end

-- groups_recount makes the running counts right after the queue's caps
-- changed: counted afresh from unack when it has caps, dropped when not.
local function groups_recount()
  rcall('DEL', K.g_running)
  if not groups_capped() then return end
  local h = {}
  for g, n in pairs(running_now()) do
    h[#h + 1] = g
    h[#h + 1] = n
  end
  if #h > 0 then call_chunked('HSET', K.g_running, h, 2) end
end

-- running_of returns the running counts of groups gs (a list) as a table,
-- in one HMGET.
local function running_of(gs)
  local out = {}
  local got = call_chunked_flat('HMGET', K.g_running, gs)
  for i = 1, #gs do out[gs[i]] = tonumber(got[i]) or 0 end
  return out
end

-- groups_ended, in a queue with caps (see groups_capped), lowers the
-- running counts of the groups whose jobs left unack (vals: their stored
-- values) and puts those out of the rotation back in it: their cap may
-- have held them out. It returns true when one rejoined (a claim is worth
-- waking). Per call an HMGET and an HSET of running counts, an
-- SMISMEMBER, an SADD and an RPUSH of the rotation.
local function groups_ended(vals)
  local by, gs = {}, {}
  for i = 1, #vals do
    local g = group_of(vals[i])
    if g then
      if not by[g] then
        by[g] = 0
        gs[#gs + 1] = g
      end
      by[g] = by[g] + 1
    end
  end
  if #gs == 0 then return false end
  local run = running_of(gs)
  local h, zero = {}, {}
  for _, g in ipairs(gs) do
    local r = run[g] - by[g]
    if r > 0 then
      h[#h + 1] = g
      h[#h + 1] = r
    else
      zero[#zero + 1] = g
    end
  end
  if #h > 0 then call_chunked('HSET', K.g_running, h, 2) end
  if #zero > 0 then call_chunked('HDEL', K.g_running, zero, 1) end
  return groups_activate(gs)
end
