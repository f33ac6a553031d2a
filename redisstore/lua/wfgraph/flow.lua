-- wfgraph/flow.lua: how task ends move a workflow (wfgraph/state.lua
-- holds the record): dependencies satisfied or not, skips, the end of the
-- workflow, and the reply of the wf_*.lua scripts.
--- @include wfgraph/state

-- satisfied reports whether dependency dep, ended in state st, lets t run.
local function satisfied(dep, st, t)
  return st == 'S' or info(dep).af or info(t).ao
end

-- dep_status returns how many of deps (task t's dependencies) have not
-- ended, and whether one ended without satisfying t.
local function dep_status(deps, t)
  local open, bad = 0, false
  for _, dep in ipairs(deps) do
    local st = state(dep)
    if not ENDED[st] then
      open = open + 1
    elseif not satisfied(dep, st, t) then
      bad = true
    end
  end
  return open, bad
end

-- satisfy counts c (nil: one) more dependencies of waiting task d as
-- satisfied and releases d when none is left. A task's remaining count is
-- read only while it waits, and set again when it waits again (reopen),
-- so a released task's is not written back.
local function satisfy(d, c)
  local r = rem(d) - (c or 1)
  if r <= 0 then release(d) else set_rem(d, r) end
end

-- propagate applies task t's end in state st to its waiting dependents,
-- and skips onward through the dependents it skips.
local function propagate(t, st)
  local deps = dependents_of(t)
  if not deps then return end
  if st == 'S' and not find(deps, '\n', 1, true) then
    -- The common case: one dependent, satisfied.
    if state(deps) == 'w' then satisfy(deps) end
    return
  end
  local todo, k = {{t, st}}, 1
  while k <= #todo do
    local cur, cst = todo[k][1], todo[k][2]
    k = k + 1
    for _, d in ipairs(names(dependents_of(cur))) do
      if state(d) == 'w' then
        if satisfied(cur, cst, d) then
          satisfy(d)
        else
          set_state(d, 'K', 'w')
          todo[#todo + 1] = {d, 'K'}
        end
      end
    end
  end
end

-- reopen makes the tasks skipped because of task t (requeued) wait again,
-- onward through their dependents, unless another dependency still
-- skips them.
local function reopen(t)
  local stack = {t}
  while #stack > 0 do
    local cur = table.remove(stack)
    for _, d in ipairs(names(dependents_of(cur))) do
      if state(d) == 'K' then
        local open, bad = dep_status(names(rcall('HGET', WK.d, d)), d)
        if not bad then
          set_rem(d, open)
          set_state(d, 'w', 'K')
          if open == 0 then release(d) end
          stack[#stack + 1] = d
        end
      end
    end
  end
end

-- end_check ends the workflow when no task is open, also when a task
-- opened again in this step (a requeue's record applied with the task's
-- new end: the workflow ran again and ends again, at now), and re-opens
-- it when a task is open again (what WM says: call it after flush). An end is published
-- on "<prefix>:done", where WatchWorkflow listens (wait_workflow.go): a
-- job end message (waiters.lua) of the queue '~wf' ('~' is in no queue
-- name) and the workflow's ID, with its state.
local function end_check(now)
  if WM.open == 0 and (WM.st == 'running' or WM.reopened) then
    local new = 'succeeded'
    if wf_cancelled then new = 'cancelled' elseif WM.bad > 0 then new = 'failed' end
    rcall('HSET', WK.m, 'st', new, 'en', now)
    WM.st = new
    local id = string.match(WK.m, '^{[^:}]*:wf:(.*)}:[^}]*$')
    -- pcall: a refused message must not stop the step after its writes.
    redis.pcall('PUBLISH', PREFIX .. ':done', cmsgpack.pack({'~wf', id, new, '', 0, '', '', 0, now}))
  elseif WM.open > 0 and WM.st ~= 'running' then
    rcall('HSET', WK.m, 'st', 'running', 'en', 0)
    WM.st = 'running'
  end
end

-- reply returns the workflow's state, its indexed state, created ms, ended
-- ms and retention ms, then for each task of list: name, queue, payload.
local function reply(list)
  local m = rcall('HMGET', WK.m, 'st', 'ist', 'cr', 'en', 'ret')
  local out = {m[1] or '', m[2] or '', m[3] or '0', m[4] or '0', m[5] or '0'}
  if #list > 0 then
    local pl = call_chunked_flat('HMGET', WK.p, list)
    for i = 1, #list do
      local st = st_cache[list[i]]
      if pl[i] and (st == nil or st == 'e') then
        out[#out + 1] = list[i]
        out[#out + 1] = info(list[i]).q
        out[#out + 1] = pl[i]
      end
    end
  end
  return out
end

-- The lists apply_ends and usual_ends fill, kept (base.lua's kept_trim,
-- written out where they are cleared: a Lua call costs about a thousand
-- instructions): a finish applies ends to one workflow after the other, a
-- chain's task each. ae_one holds the field of the one task of such a
-- step, read with HGET.
local ue_rest, ae_direct, ae_results, ae_one = {}, {}, {}, {}

-- apply_ends applies n task ends to the open workflow: the k-th is task
-- tasks[k]'s, with the seq seqs[k] (decimal digits; nil or false for an
-- end applied in the step that ended the job, wf/local.lua), outcome
-- ocs[k] (s, f, c, d, r; nil for s) and result res[k] (nil or '' for
-- none), at time now (ms). A task remembers the seq of the last end
-- applied, and an older or repeated one changes nothing. It returns
-- whether one end had been applied before (a delivery a dead process left
-- half done).
--
-- The usual end, a running task without dependents that succeeded (its
-- field is the letter 'e' alone: no end applied before, nobody waits for
-- it), is written straight into one HSET, past the caches, when the
-- workflow was just opened: one HMGET (an HGET for one task) reads every
-- task's field, and only the others go through the caches and flush. So
-- is the success of a running task with one dependent (its field
-- "e|<dependent>", the shape of a fan-in's and a chain's tasks), whose
-- dependent is then satisfied once for all of them. When every end is a
-- success without a seq (those of the step that ended the jobs),
-- usual_ends takes these first with the least work a task, and leaves the
-- others (rest) to the general loop.
--
-- usual_ends takes the usual ends among the n successes of tasks (fresh:
-- their fields as read, res: their results) into direct (field, value)
-- and results, satisfies the dependents of those it took, and returns
-- how many values it added to direct and the indexes of the ends it left.
local function usual_ends(n, tasks, res, fresh, direct, results)
  -- wd: the first dependent waited on, wc: by how many; waits: the others
  local rest, nd, wd, wc, waits = ue_rest, 0, nil, 0, nil
  for i = #rest, 1, -1 do rest[i] = nil end
  for k = 1, n do
    local t, f = tasks[k], fresh[k]
    -- st_cache marks a task taken, so that the same task ending twice in
    -- one step counts once.
    local v
    if st_cache[t] ~= nil or not f then
      -- taken already, or no such task: the general loop's
    elseif f == 'e' then
      v = 'S'
    elseif string.byte(f, 2) == 124 and string.byte(f, 1) == 101 and not find(f, '\n', 3, true) then
      -- "e|<d>": one dependent ('|' 124, 'e' 101)
      local d = sub(f, 3)
      dep_cache[t] = d
      v = 'S|' .. d
      if wd == nil or wd == d then
        wd, wc = d, wc + 1
      else
        waits = waits or {}
        waits[d] = (waits[d] or 0) + 1
      end
    end
    if v then
      st_cache[t] = 'S'
      direct[nd + 1], direct[nd + 2], nd = t, v, nd + 2
      local r = res[k]
      if r and r ~= '' then
        results[#results + 1] = t
        results[#results + 1] = r
      end
    else
      rest[#rest + 1] = k
    end
  end
  -- Each dependent, satisfied once for all the ends that wait on it.
  if wd and state(wd) == 'w' then satisfy(wd, wc) end
  if waits then
    for d, c in pairs(waits) do
      if state(d) == 'w' then satisfy(d, c) end
    end
  end
  return nd, rest
end

-- end_other applies to task t, in state cur, an end apply_ends leaves to
-- it (seq its record's, nil for an end applied in the step that ended the
-- job): a failure, a cancel or a delete (oc f, c, d), a requeue (oc r), or
-- an end of a task that no longer runs.
local function end_other(t, cur, oc, seq)
  if oc == 'r' then
    if cur == 'F' or cur == 'C' then
      set_state(t, 'e', cur)
      reopen(t)
    end
  elseif cur == 'F' or cur == 'C' then
    -- A newer end of a task that failed or was cancelled: its job ran
    -- again, so it was requeued, and the requeue's record was not applied
    -- yet (RequeueJobs delivers it after its own step, and a worker's end
    -- may come first; on a Cluster this end's record may have taken its
    -- place). The requeue is applied first. An end applied in its own
    -- step (wf/local.lua, on one server: no seq) takes the requeue's
    -- record, which would otherwise come after it and undo it, and
    -- stands after its seq.
    local wd = not seq and K.wf_done
    if wd then
      local id = string.match(WK.m, '^{[^:}]*:wf:(.*)}:[^}]*$') .. '~' .. t
      local rec = rcall('HGET', wd, id)
      local rseq = rec and string.match(rec, '^(%d+),r,')
      if rseq then
        rcall('HDEL', wd, id)
        rcall('ZREM', K.wf_due, id)
        seq_cache[t] = rseq
      end
    end
    set_state(t, 'e', cur)
    reopen(t)
    end_other(t, 'e', oc, seq)
  elseif cur == 'e' then
    -- Only a running task ends: the end of a done task's job run
    -- again (requeued from done) leaves its workflow as it is.
    local new = END_STATE[oc]
    if new and new ~= cur then
      set_state(t, new, cur)
      propagate(t, new)
    end
  end
end

local function apply_ends(n, tasks, seqs, ocs, res, now)
  local again = false
  if n == 0 then return again end
  local fresh, nx = nil, next
  if nx(st_cache) ~= nil then
    prefetch(tasks)
  elseif n == 1 then
    fresh, ae_one[1] = ae_one, rcall('HGET', WK.s, tasks[1])
  else
    fresh = call_chunked_flat('HMGET', WK.s, tasks)
  end
  local results, direct, nd, rest = ae_results, ae_direct, 0, nil
  for i = #results, 1, -1 do results[i] = nil end
  if fresh and nx(seqs) == nil and nx(ocs) == nil then
    nd, rest = usual_ends(n, tasks, res, fresh, direct, results)
  end
  local ok = nd / 2 -- running tasks that succeeded (the fast paths)
  for j = 1, rest and #rest or n do
    local k = rest and rest[j] or j
    local t, seq, oc = tasks[k], seqs[k], ocs[k] or 's'
    local cur = st_cache[t]
    if fresh and cur == nil then
      if fresh[k] == 'e' and oc == 's' then
        cur = true -- the usual end, direct
      else
        load_state(t, fresh[k] or false)
        cur = st_cache[t]
      end
    elseif cur == nil then
      cur = state(t)
    end
    if cur == true then
      -- st_cache marks it, so that the same task ending twice in one step
      -- counts once.
      st_cache[t] = 'S'
      if seq then seq_cache[t] = seq end
      ok = ok + 1
      direct[nd + 1], direct[nd + 2], nd = t, seq and ('S' .. seq) or 'S', nd + 2
      local r = res[k]
      if r and r ~= '' then
        results[#results + 1] = t
        results[#results + 1] = r
      end
    elseif not cur then
      -- not a task of this workflow: nothing to apply
    elseif seq and tonumber(seq) <= (tonumber(seq_cache[t]) or 0) then
      again = true
    elseif cur == 'e' and oc == 's' then
      -- The usual end of a task with dependents: set_state's work, with
      -- the counters bumped once for all.
      if seq then seq_cache[t] = seq end
      st_cache[t] = 'S'
      st_dirty[t] = true
      ok = ok + 1
      local r = res[k]
      if r and r ~= '' then
        results[#results + 1] = t
        results[#results + 1] = r
      end
      if dep_cache[t] then propagate(t, 'S') end
    else
      if seq then seq_cache[t] = seq end
      st_dirty[t] = true
      if oc == 's' and (cur == 'F' or cur == 'C') then
        -- A requeued task's success (end_other applies the requeue
        -- first): its result is kept as a running task's is.
        local r = res[k]
        if r and r ~= '' then
          results[#results + 1] = t
          results[#results + 1] = r
        end
      end
      end_other(t, cur, oc, seq)
    end
  end
  if ok > 0 then -- bump's work, written out
    local c = counters
    c.c_e, c.c_S, c.open = (c.c_e or 0) - ok, (c.c_S or 0) + ok, (c.open or 0) - ok
  end
  if #results > 0 then call_chunked('HSET', WK.o, results, 2) end
  for i = #direct, nd + 1, -1 do direct[i] = nil end -- kept_trim(direct, nd)
  flush(direct, nd)
  end_check(now)
  return again
end
