-- wf/local.lua: on one server, the ends of workflow tasks' jobs applied to
-- their workflows in the step that ended them (see workflow.go, "On one
-- server"), for the contract in wf/record.lua. finish.go passes, after the
-- script's own keys (K_N of them), the eight keys of every workflow whose
-- task's job the batch ends. The tasks those ends release into this queue
-- (with a priority or group this variant serves) are enqueued here, and
-- the index brought up to date; the others are left being released
-- (wf_rel), returned for the caller to enqueue and confirm, and the
-- workflow marked for a sweeper to look at after WF_LEASE (wfi_chk), as
-- workflow.go's markCheck does: a process that dies before it enqueued
-- them leaves them to the sweeper.
--- @include wfends wfgraph/flow wfrel wfsettle

-- ENDS_TRACKED tells whether this file tracks the ends of some jobs: a
-- finish that ends nobody's tasks may take the lean way (ends_lean.lua).
local ENDS_TRACKED = true

wf_inline = true

-- local_keys returns the keys finish.go passed for each workflow, by ID:
-- the index of its first key in KEYS. A workflow's meta key is
-- "{<prefix>:wf:<id>}:m", and a prefix holds no ':'.
local function local_keys()
  local m = {}
  for i = K_N + 1, #KEYS - 7, 8 do
    local k = KEYS[i]
    local z = string.find(k, ':wf:', 1, true)
    if z then m[string.sub(k, z + 4, -4)] = i end
  end
  return m
end

-- The ends noted in this step, by workflow: local_order lists the
-- workflows whose keys finish.go passed (local_keyed, by ID: the index of
-- the first in KEYS), in the order of their first end, and local_by holds
-- for each its ends (n; the tasks, outcomes and results, an outcome nil
-- for 's' and a result nil for none, the tables made for the first that
-- is not). The ends of a workflow without keys
-- are recorded for delivery (wf_note). A task job's ID is
-- "<workflow>~<task>" (store.TaskJobID), cut at its first '~' by a plain
-- find as the end is noted: a pattern with captures, or a second pass
-- over the notes, costs several times as much per end.
local local_by, local_order, local_keyed, local_wf, local_a
-- local_pool keeps the tables of local_by's entries from one call to the
-- next (local_pooled of them handed out in this call): a chain's ends
-- each open a workflow of their own.
local local_pool, local_pooled = {}, 0
local function reset_wf()
  local_by, local_order, local_keyed, local_wf, local_a = {}, {}, nil, nil, nil
  local_pooled = 0
end

-- local_entry returns an empty entry of local_by: n = 0, tasks empty, no
-- outcomes or results.
local function local_entry()
  local_pooled = local_pooled + 1
  local e = local_pool[local_pooled]
  if not e then
    e = {n = 0, tasks = {}}
    local_pool[local_pooled] = e
    return e
  end
  e.n, e.ocs, e.res = 0, nil, nil
  return e
end

local function tracked_among(ids) return wf_flags(ids) end

-- file_ends files the ends of the n jobs ids (all with outcome, and
-- result) under their workflows: one loop for a batch, since a Lua call
-- a job costs about a thousand instructions (track_oks, the usual case).
-- An ID that starts as the previous one's workflow and '~' (pre) is cut
-- with one string.sub: a batch's ends mostly come from one workflow.
-- (find and sub are string.find and string.sub, looked up once a call by
-- reset_wfgraph: a library's load sees no string table.)
local function file_ends(ids, n, outcome, result)
  local usual = outcome == 's' and (not result or result == '')
  local a, cur = local_a, local_wf
  local pre = cur and cur .. '~'
  local from = pre and #pre + 1 -- where pre's task names start
  local tasks, m = a and a.tasks, a and a.n
  for i = 1, n do
    local id = ids[i]
    local task
    if pre and find(id, pre, 1, true) == 1 then
      task = sub(id, from)
    else
      local z = find(id, '~', 1, true)
      if z then
        local wf = sub(id, 1, z - 1)
        task = sub(id, z + 1)
        if a then a.n = m end
        a = local_by[wf]
        if a == nil then
          if not local_keyed then local_keyed = local_keys() end
          a = local_keyed[wf] and local_entry() or false
          local_by[wf] = a
          if a then local_order[#local_order + 1] = wf end
        end
        tasks, m = a and a.tasks, a and a.n
        cur, pre, from = wf, wf .. '~', z + 1
      end
    end
    if a and task then
      m = m + 1
      tasks[m] = task
      -- Most ends are successes without a result: kept as nil
      -- (apply_ends reads nil as 's' and as no result).
      if not usual then
        if outcome ~= 's' then
          a.ocs = a.ocs or {}
          a.ocs[m] = outcome
        end
        if result and result ~= '' then
          a.res = a.res or {}
          a.res[m] = result
        end
      end
    elseif task then
      wf_note(id, outcome, result)
    end
  end
  if a then a.n = m end
  local_wf, local_a = cur, a
end

local function track_end(id, outcome, result) file_ends({id}, 1, outcome, result) end

local function track_oks(ids, n) file_ends(ids, n, 's', '') end

-- tracked_tail applies the noted ends to their workflows, enqueues what they
-- release into this queue, and appends to finish's reply the records it
-- left to deliver (the ends of workflows without keys: none unless one
-- was missing), then the releases it leaves to the caller. The ends carry
-- no seq (NONE): applied in the step that ended the job, no record of an
-- earlier run can come after them (a task runs again only after a
-- requeue, whose record has a later seq).
local function tracked_tail(out, now, later)
  -- acc and rel are made for the first workflow that released a task
  -- (local_settle touches them only then).
  local acc, rel
  for k = 1, #local_order do
    local wf = local_order[k]
    wf_use(nil, local_keyed[wf])
    if WM.st then
      local a = local_by[wf]
      local tasks, n = a.tasks, a.n
      for j = #tasks, n + 1, -1 do tasks[j] = nil end -- kept_trim(tasks, n)
      apply_ends(n, tasks, NONE, a.ocs or NONE, a.res or NONE, now)
      if #released > 0 and not acc then acc, rel = {ids = {}, dues = {}, vals = {}}, {} end
      local_settle(wf, acc, rel, now)
    end
  end
  if acc and #acc.ids > 0 then release_into(acc.ids, acc.dues, acc.vals, now, later, true) end
  out[#out + 1] = wf_written
  for _, x in ipairs(wf_flush(now)) do out[#out + 1] = x end
  for _, x in ipairs(rel or NONE) do out[#out + 1] = x end
end
