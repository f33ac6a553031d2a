-- wfcreate.lua: store a new workflow with every task, for wf_create.lua
-- and wf_create_local.lua (see workflow.go).
--- @include wfgraph/flow
--
-- ARGV: 1 id, 2 name, 3 retention ms, then six per task: name, info,
-- dependencies, dependents, due and value of its job (wf_release.lua's
-- triples without the ID).

-- create_workflow stores the workflow of ARGV in the one wf_use opened, at
-- now (ms), unless its ID is held: then it returns false. The tasks
-- without dependencies are released at once. ist is the state the meta
-- records as indexed: '' for a caller that leaves the index to another
-- step, 'running' for one that indexes the workflow itself in this step
-- (written here, not after: a second HSET of the meta costs a call).
-- head, when given, is the start of the info of the tasks the caller
-- enqueues itself, in this step, when they are released ("<queue>\n": its
-- queue's): such a task is stored enqueued, without its payload and
-- outside rel. (A prefix, not a function: a Lua call a task costs about a
-- thousand instructions.) It returns the names of the other released
-- tasks, which it leaves being released (rel) for the caller to enqueue,
-- and the jobs of those it keeps as release_into (wfrel.lua) takes them:
-- their IDs, dues and values (empty without head).
local function create_workflow(now, head, ist)
  -- wf_use read the meta: every workflow's has a state.
  if WM.st then return false end
  local s, r, i, d, p, roots, ids, dues, vals = {}, {}, {}, {}, {}, {}, {}, {}, {}
  local ns, nr, nd, np, nroots, nkept = 0, 0, 0, 0, 0, 0
  local nt = 0
  local wf = ARGV[1]
  for a = 4, #ARGV, 6 do
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
  local released = nroots + nkept
  -- Numbers go as strings: redis.call would format each with snprintf.
  local nts = SMALL[nt] or str(nt)
  rcall('HSET', WK.m, 'id', wf, 'name', ARGV[2], 'st', 'running', 'cx', '0', 'cr', ms_str(now), 'en', '0',
    'ret', ARGV[3], 'nt', nts, 'open', nts, 'bad', '0', 'ist', ist, 'c_w', SMALL[nt - released] or str(nt - released),
    'c_e', SMALL[released] or str(released))
  WM.st, WM.open, WM.bad, WM.ist = 'running', nt, 0, ist
  call_chunked('HSET', WK.s, s, 2)
  call_chunked('HSET', WK.i, i, 2)
  -- A task missing from r waits for nothing (wfgraph/state.lua's rem).
  if nr > 0 then call_chunked('HSET', WK.r, r, 2) end
  if np > 0 then call_chunked('HSET', WK.p, p, 2) end
  if nd > 0 then call_chunked('HSET', WK.d, d, 2) end
  if nroots > 0 then call_chunked('SADD', WK.rel, roots, 1) end
  return roots, ids, dues, vals
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
