-- groups/rotation.lua: the rotation of a grouped queue, for ready/group.lua.
-- g_rot lists the groups due a turn ('' standing for the queue's
-- ungrouped jobs), each at most once; g_inrot holds its members. A member
-- may have lost its jobs or its room since it was added: the claim that
-- meets it drops it. A group with ready jobs and room is always in it: it
-- joins when jobs are pushed to it, when one of its jobs leaves unack and
-- when its cap is raised, and leaves only when a claim finds it empty or
-- at its cap.
--- @keys g_rot g_inrot

-- group_activate puts g ('' for the ungrouped jobs) in the rotation
-- unless it is there; it returns true when it added it.
local function group_activate(g)
  if rcall('SADD', K.g_inrot, g) == 1 then
    rcall('RPUSH', K.g_rot, g)
    return true
  end
  return false
end

-- groups_activate puts gs in the rotation, those not in it yet, and
-- returns whether one joined.
local function groups_activate(gs)
  if #gs == 0 then return false end
  local inrot = call_chunked_flat('SMISMEMBER', K.g_inrot, gs)
  local add = {}
  for i, g in ipairs(gs) do
    if inrot[i] == 0 then add[#add + 1] = g end
  end
  if #add == 0 then return false end
  call_chunked('SADD', K.g_inrot, add, 1)
  call_chunked('RPUSH', K.g_rot, add, 1)
  return true
end

-- rotation_len returns how many members the rotation has.
local function rotation_len()
  return rcall('LLEN', K.g_rot)
end
