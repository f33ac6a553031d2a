-- wfadd.lua: add tasks to a running workflow, for wf_add.lua and
-- wf_add_local.lua (see workflow.go AddTasks).
--- @include wfgraph/flow
--
-- ARGV: 1 the adding task, 2 the most tasks a workflow may hold, then five
-- per task: name, info, dependencies, blocks, payload.

-- add_tasks adds the tasks of ARGV to the workflow wf_use opened, and
-- releases those that wait for nothing (wfgraph/state.lua's release). It
-- returns the reply of a call that adds nothing: {'gone'}, {'ended'} or
-- {'err', code, task, other} (store.AddTasksRefused); else nil, also when every task was there already.
local function add_tasks()
  if rcall('EXISTS', WK.m) == 0 then return {'gone'} end
  local meta = rcall('HMGET', WK.m, 'st', 'cx', 'nt')
  if meta[1] ~= 'running' or meta[2] == '1' then return {'ended'} end
  local new, order = {}, {}
  for a = 3, #ARGV, 5 do
    local t = ARGV[a]
    if not state(t) then
      new[t] = {info = ARGV[a + 1], deps = names(ARGV[a + 2]), blocks = names(ARGV[a + 3]), pl = ARGV[a + 4]}
      order[#order + 1] = t
    end
  end
  if #order == 0 then return nil end
  if (tonumber(meta[3]) or 0) + #order > tonumber(ARGV[2]) then
    return {'err', 'too_many', '', ARGV[2]}
  end
  -- Check every reference before writing anything.
  for _, t in ipairs(order) do
    for _, dep in ipairs(new[t].deps) do
      if not new[dep] then
        local st = state(dep)
        if not st then return {'err', 'dep_missing', t, dep} end
        if st == 'w' then return {'err', 'dep_waiting', t, dep} end
      end
    end
    for _, b in ipairs(new[t].blocks) do
      local st = state(b)
      if new[b] then return {'err', 'blocks_added', t, b} end
      if not st then return {'err', 'blocks_missing', t, b} end
      if st ~= 'w' then return {'err', 'blocks_started', t, b} end
    end
  end
  -- Write the tasks, waiting, and the edges.
  local nt = tonumber(meta[3]) or 0
  local appends = {} -- task -> dependents to add
  local function add_dependent(dep, t)
    appends[dep] = appends[dep] or {}
    local l = appends[dep]
    l[#l + 1] = t
  end
  for k, t in ipairs(order) do
    local x = new[t]
    local v = string.gsub(x.info, '\n%d+$', '\n' .. (nt + k - 1))
    rcall('HSET', WK.i, t, v)
    rcall('HSET', WK.p, t, x.pl)
    st_cache[t] = 'w' -- no dependents yet: none in dep_cache
    st_dirty[t] = true
    local deps = x.deps
    for _, dep in ipairs(deps) do add_dependent(dep, t) end
    if #deps > 0 then rcall('HSET', WK.d, t, table.concat(deps, '\n')) end
    for _, b in ipairs(x.blocks) do
      add_dependent(t, b)
      local bd = rcall('HGET', WK.d, b)
      if bd and bd ~= '' then bd = bd .. '\n' .. t else bd = t end
      rcall('HSET', WK.d, b, bd)
      set_rem(b, rem(b) + 1)
    end
  end
  for dep, l in pairs(appends) do add_dependents(dep, table.concat(l, '\n')) end
  bump('nt', #order)
  bump('open', #order)
  bump('c_w', #order)
  -- Count what each new task still waits for; skip those a dependency that
  -- already ended does not satisfy, then release those waiting for nothing.
  local skips = {}
  for _, t in ipairs(order) do
    local open, skip = dep_status(new[t].deps, t)
    set_rem(t, open)
    if skip then skips[#skips + 1] = t end
  end
  for _, t in ipairs(skips) do
    if state(t) == 'w' then
      set_state(t, 'K', 'w')
      propagate(t, 'K')
    end
  end
  for _, t in ipairs(order) do
    if state(t) == 'w' and rem(t) == 0 then release(t) end
  end
  flush()
  return nil
end
