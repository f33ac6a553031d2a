-- wfcreate.lua: store a new workflow with every task, for wf_create.lua,
-- wf_create_local.lua and wf_stage.lua (see workflow.go, and
-- workflow_stage.go for a large workflow's staged tasks).
--- @include wfgraph/flow
--
-- ARGV: 1 id, 2 name, 3 retention ms, 4 the attempt whose staged tasks
-- the workflow takes ('' for none), 5 how many tasks it staged, 6 how many
-- of them were released (no dependencies), then six per task: name, info,
-- dependencies, dependents, due and value of its job (wf_release.lua's
-- triples without the ID).

-- STAGED_ROOTS are the roots of the workflow's keys whose staged copies
-- (keys.go's families: "<root>:<attempt>") a large workflow's last step
-- renames into place.
local STAGED_ROOTS = {'s', 'r', 'i', 'd', 'p', 'rel'}

-- store_tasks stores the tasks of ARGV from index from on (six values
-- each) in the workflow wf_use opened. The tasks without dependencies are
-- released at once. head, when given, is the start of the info of the
-- tasks the caller enqueues itself, in this step, when they are released
-- ("<queue>\n": its queue's): such a task is stored enqueued, without its
-- payload and outside rel. (A prefix, not a function: a Lua call a task
-- costs about a thousand instructions.) It returns the names of the other
-- released tasks, which it leaves being released (rel) for the caller to
-- enqueue, the jobs of those it keeps as release_into (wfrel.lua) takes
-- them: their IDs, dues and values (empty without head), and how many
-- tasks it stored and released.
local function store_tasks(from, head)
  local s, r, i, d, p, roots, ids, dues, vals = {}, {}, {}, {}, {}, {}, {}, {}, {}
  local ns, nr, nd, np, nroots, nkept = 0, 0, 0, 0, 0, 0
  local nt = 0
  local wf = ARGV[1]
  for a = from, #ARGV, 6 do
    local t, deps, dependents = ARGV[a], ARGV[a + 2], ARGV[a + 3]
    nt = nt + 1
    i[ns + 1] = t; i[ns + 2] = ARGV[a + 1]
    -- Released at once when it waits for nothing.
    local st = deps == '' and 'e' or 'w'
    s[ns + 1] = t
    s[ns + 2] = dependents == '' and st or (st .. '|' .. dependents)
    ns = ns + 2
    local mine = false
    if deps == '' then
      mine = head ~= nil and string.find(ARGV[a + 1], head, 1, true) == 1
      if mine then
        nkept = nkept + 1
        ids[nkept], dues[nkept], vals[nkept] = wf .. '~' .. t, ARGV[a + 4], ARGV[a + 5]
      else
        nroots = nroots + 1
        roots[nroots] = t
      end
    else
      d[nd + 1] = t; d[nd + 2] = deps; nd = nd + 2
      local c = 1
      for _ in string.gmatch(deps, '\n') do c = c + 1 end
      r[nr + 1] = t; r[nr + 2] = SMALL[c] or str(c); nr = nr + 2
    end
    if not mine then
      p[np + 1] = t; p[np + 2] = ARGV[a + 4] .. '|' .. ARGV[a + 5]; np = np + 2
    end
  end
  if ns > 0 then
    call_chunked('HSET', WK.s, s, 2)
    call_chunked('HSET', WK.i, i, 2)
  end
  -- A task missing from r waits for nothing (wfgraph/state.lua's rem).
  if nr > 0 then call_chunked('HSET', WK.r, r, 2) end
  if np > 0 then call_chunked('HSET', WK.p, p, 2) end
  if nd > 0 then call_chunked('HSET', WK.d, d, 2) end
  if nroots > 0 then call_chunked('SADD', WK.rel, roots, 1) end
  return roots, ids, dues, vals, nt, nroots + nkept
end

-- staged_keys returns the staged copies of the open workflow's keys of
-- STAGED_ROOTS for attempt att, by root.
local function staged_keys(att)
  local real = {s = WK.s, r = WK.r, i = WK.i, d = WK.d, p = WK.p, rel = WK.rel}
  local out = {}
  for _, root in ipairs(STAGED_ROOTS) do out[root] = real[root] .. ':' .. att end
  return out, real
end

-- drop_staged deletes attempt att's staged keys.
local function drop_staged(att)
  local staged = staged_keys(att)
  for _, root in ipairs(STAGED_ROOTS) do rcall('DEL', staged[root]) end
end

-- take_staged renames attempt att's staged keys into place, ns tasks in
-- all, and reports whether they were all there: a stage whose keys
-- expired leaves the workflow without them, and nothing is kept.
local function take_staged(att, ns)
  local staged, real = staged_keys(att)
  for _, root in ipairs(STAGED_ROOTS) do
    if rcall('EXISTS', staged[root]) == 1 then
      rcall('RENAME', staged[root], real[root])
      rcall('PERSIST', real[root])
    end
  end
  if rcall('HLEN', real.s) == ns then return true end
  for _, root in ipairs(STAGED_ROOTS) do rcall('DEL', real[root]) end
  return false
end

-- create_workflow stores the workflow of ARGV in the one wf_use opened, at
-- now (ms), unless its ID is held: then it returns false. With an attempt
-- (ARGV[4]), the tasks that attempt staged (wf_stage.lua) go into place
-- first; when they are not all there (their TTL passed) it stores nothing
-- and returns nil. The tasks of ARGV follow (store_tasks, with head).
-- ist is the state the meta records as indexed: '' for a caller that
-- leaves the index to another step, 'running' for one that indexes the
-- workflow itself in this step (written here, not after: a second HSET of
-- the meta costs a call). It returns store_tasks' first four results, and
-- how many staged tasks were released.
local function create_workflow(now, head, ist)
  local att = ARGV[4]
  -- wf_use read the meta: every workflow's has a state.
  if WM.st then
    if att ~= '' then drop_staged(att) end
    return false
  end
  local staged, staged_rel = tonumber(ARGV[5]) or 0, tonumber(ARGV[6]) or 0
  if att ~= '' and not take_staged(att, staged) then return nil end
  local roots, ids, dues, vals, n, released = store_tasks(7, head)
  local nt = n + staged
  released = released + staged_rel
  -- Numbers go as strings: redis.call would format each with snprintf.
  local nts = SMALL[nt] or str(nt)
  rcall('HSET', WK.m, 'id', ARGV[1], 'name', ARGV[2], 'st', 'running', 'cx', '0', 'cr', ms_str(now), 'en', '0',
    'ret', ARGV[3], 'nt', nts, 'open', nts, 'bad', '0', 'ist', ist, 'c_w', SMALL[nt - released] or str(nt - released),
    'c_e', SMALL[released] or str(released))
  WM.st, WM.open, WM.bad, WM.ist = 'running', nt, 0, ist
  return roots, ids, dues, vals, staged_rel
end

-- dup_reply returns a duplicate's reply: 'dup', then name, queue and
-- payload of each task the workflow has being released, which the call
-- that created it left and may have died before enqueueing (this call
-- may be its retry): the caller enqueues them, as a sweeper would after
-- WF_LEASE.
local function dup_reply()
  local r = reply(rcall('SMEMBERS', WK.rel))
  local out = {'dup'}
  for i = 6, #r do out[i - 4] = r[i] end
  return out
end

-- create_reply returns wfgraph/flow.lua's reply for the workflow created
-- at now (ms) with ist (create_workflow's), with the released tasks roots
-- (create_workflow's first result), their queue and payload left empty:
-- the caller has them. The head is what reply would read back from the
-- meta create_workflow wrote, made here without the HMGET.
local function create_reply(roots, now, ist)
  local out = {'running', ist, ms_str(now), '0', ARGV[3]}
  for _, t in ipairs(roots) do
    out[#out + 1] = t
    out[#out + 1] = ''
    out[#out + 1] = ''
  end
  return out
end
