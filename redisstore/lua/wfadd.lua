-- wfadd.lua: add tasks to a running workflow, for wf_add.lua and
-- wf_add_local.lua (see workflow.go AddTasks).
--- @include wfgraph/flow
--
-- ARGV: 1 the adding task, 2 the most tasks a workflow may hold, then five
-- per task: name, info, dependencies, blocks, payload.

-- add_refused checks every reference of the tasks to add (new, by name,
-- in order) before anything is written: the reply of a refused call, or
-- nil.
local function add_refused(new, order)
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
  return nil
end

-- add_write writes the tasks to add (new, by name, in order; the workflow
-- held nt tasks) and their edges, and returns how many of them have no
-- dependencies. The infos, payloads and dependencies go in one HSET each
-- (chunked): a command a task held Redis for a large addition. A task without
-- dependencies (the usual task of a fan-out learnt at run time) is
-- enqueued at once, as a workflow's creation does its first tasks: no
-- remaining count, and on one server (wf_inline) its payload kept out of
-- p for local_settle (WM.pls), which enqueues it or leaves it being
-- released. Each other task waits.
local function add_write(new, order, nt)
  -- task -> the dependents, or for a blocked task the dependencies, to
  -- add to its fields: each field is written once, whatever the number
  -- of tasks that name it (an HGET and an HSET of the whole field a task
  -- made an addition of n tasks all Before one task cost O(n^2): 4,000
  -- took 0.6 s of Redis).
  local appends, blocked = {}, {}
  local function push(m, k, t)
    local l = m[k]
    if not l then l = {}; m[k] = l end
    l[#l + 1] = t
  end
  local iv, pv, dv, infos, np, nd, free = {}, {}, {}, {}, 0, 0, 0
  local pls = wf_inline and {} or nil
  WM.infos, WM.pls = infos, pls
  for k, t in ipairs(order) do
    local x = new[t]
    local info = x.info
    -- The info's order, which the caller sends as 0, is the task's rank
    -- in the workflow.
    if string.byte(info, -1) == 48 and string.byte(info, -2) == 10 then -- "\n0"
      info = sub(info, 1, -2) .. (nt + k - 1)
    else
      info = string.gsub(info, '\n%d+$', '\n' .. (nt + k - 1))
    end
    iv[2 * k - 1], iv[2 * k], infos[t] = t, info, info
    local deps = x.deps
    -- no dependents yet: none in dep_cache
    if #deps == 0 then
      st_cache[t], free = 'e', free + 1
      x.free = true
      if pls then pls[t] = x.pl else pv[np + 1], pv[np + 2], np = t, x.pl, np + 2 end
    else
      st_cache[t] = 'w'
      pv[np + 1], pv[np + 2], np = t, x.pl, np + 2
    end
    st_dirty[t] = true
    for _, dep in ipairs(deps) do push(appends, dep, t) end
    if #deps > 0 then dv[nd + 1], dv[nd + 2], nd = t, table.concat(deps, '\n'), nd + 2 end
    for _, b in ipairs(x.blocks) do
      push(appends, t, b)
      push(blocked, b, t)
    end
  end
  call_chunked('HSET', WK.i, iv, 2)
  if np > 0 then call_chunked('HSET', WK.p, pv, 2) end
  if nd > 0 then call_chunked('HSET', WK.d, dv, 2) end
  for dep, l in pairs(appends) do add_dependents(dep, table.concat(l, '\n')) end
  for b, l in pairs(blocked) do
    local bd, add = rcall('HGET', WK.d, b), table.concat(l, '\n')
    rcall('HSET', WK.d, b, (bd and bd ~= '') and (bd .. '\n' .. add) or add)
    set_rem(b, rem(b) + #l)
  end
  return free
end

-- add_tasks adds the tasks of ARGV to the workflow wf_use opened, and
-- releases those that wait for nothing (wfgraph/state.lua's release). It
-- returns the reply of a call that adds nothing: {'gone'}, {'ended'} or
-- {'err', code, task, other} (store.AddTasksRefused); else nil and how
-- many tasks it added (0 when every task was there already).
local function add_tasks()
  if rcall('EXISTS', WK.m) == 0 then return {'gone'} end
  local meta = rcall('HMGET', WK.m, 'st', 'cx', 'nt')
  if meta[1] ~= 'running' or meta[2] == '1' then return {'ended'} end
  -- none: the dependencies or blocks of a task that has none (most have
  -- neither), one table for all of them.
  local new, order, all, none = {}, {}, {}, {}
  for a = 3, #ARGV, 5 do all[#all + 1] = ARGV[a] end
  -- One HMGET for the states of every task named (an HGET each cost a
  -- large addition a command a task).
  prefetch(all)
  for a = 3, #ARGV, 5 do
    local t = ARGV[a]
    if not state(t) then
      local d, b = ARGV[a + 2], ARGV[a + 3]
      new[t] = {info = ARGV[a + 1], deps = d == '' and none or names(d), blocks = b == '' and none or names(b), pl = ARGV[a + 4]}
      order[#order + 1] = t
    end
  end
  if #order == 0 then return nil, 0 end
  if (tonumber(meta[3]) or 0) + #order > tonumber(ARGV[2]) then
    return {'err', 'too_many', '', ARGV[2]}
  end
  local refused = add_refused(new, order)
  if refused then return refused end
  local free = add_write(new, order, tonumber(meta[3]) or 0)
  bump('nt', #order)
  bump('open', #order)
  bump('c_w', #order - free)
  bump('c_e', free)
  -- Count what each new task still waits for; skip those a dependency that
  -- already ended does not satisfy, then release those waiting for nothing
  -- (those without dependencies are, in the order they were added).
  local skips = {}
  for _, t in ipairs(order) do
    if not new[t].free then
      local open, skip = dep_status(new[t].deps, t)
      set_rem(t, open)
      if skip then skips[#skips + 1] = t end
    end
  end
  for _, t in ipairs(skips) do
    if state(t) == 'w' then
      set_state(t, 'K', 'w')
      propagate(t, 'K')
    end
  end
  for _, t in ipairs(order) do
    if new[t].free then
      released[#released + 1] = t
    elseif state(t) == 'w' and rem(t) == 0 then
      release(t)
    end
  end
  flush()
  return nil, #order
end
