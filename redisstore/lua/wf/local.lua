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
-- for 's' and a result nil for none). The ends of a workflow without keys
-- are recorded for delivery (wf_note). A task job's ID is
-- "<workflow>~<task>" (store.TaskJobID), cut at its first '~' by a plain
-- find as the end is noted: a pattern with captures, or a second pass
-- over the notes, costs several times as much per end.
local local_by, local_order, local_keyed, local_wf, local_a
local function reset_wf()
  local_by, local_order, local_keyed, local_wf, local_a = {}, {}, nil, nil, nil
end

local function tracked_among(ids) return wf_members(ids) end

local function track_end(id, outcome, result)
  local z = string.find(id, '~', 1, true)
  if not z then return end
  local wf = string.sub(id, 1, z - 1)
  local a = local_a
  if wf ~= local_wf then
    a = local_by[wf]
    if a == nil then
      if not local_keyed then local_keyed = local_keys() end
      a = local_keyed[wf] and {n = 0, tasks = {}, ocs = {}, res = {}} or false
      local_by[wf] = a
      if a then local_order[#local_order + 1] = wf end
    end
    local_wf, local_a = wf, a
  end
  if not a then
    wf_note(id, outcome, result)
    return
  end
  local m = a.n + 1
  a.n = m
  a.tasks[m] = string.sub(id, z + 1)
  -- Most ends are successes without a result: kept as nil (apply_ends
  -- reads nil as 's' and as no result).
  if outcome ~= 's' then a.ocs[m] = outcome end
  if result and result ~= '' then a.res[m] = result end
end

-- NO_SEQS stands for the seqs of ends applied in the step that ended
-- their jobs: none (see tracked_tail).
local NO_SEQS = {}

-- tracked_tail applies the noted ends to their workflows, enqueues what they
-- release into this queue, and appends to finish's reply the records it
-- left to deliver (the ends of workflows without keys: none unless one
-- was missing), then the releases it leaves to the caller. The ends carry
-- no seq: applied in the step that ended the job, no record of an earlier
-- run can come after them (a task runs again only after a requeue, whose
-- record has a later seq).
local function tracked_tail(out, now, later)
  local acc, rel = {ids = {}, dues = {}, vals = {}}, {}
  for _, wf in ipairs(local_order) do
    local i = local_keyed[wf]
    wf_use({KEYS[i], KEYS[i + 1], KEYS[i + 2], KEYS[i + 3], KEYS[i + 4], KEYS[i + 5], KEYS[i + 6], KEYS[i + 7]})
    if WM.st then
      local a = local_by[wf]
      apply_ends(a.n, a.tasks, NO_SEQS, a.ocs, a.res, now)
      local_settle(wf, acc, rel, now)
    end
  end
  if #acc.ids > 0 then release_into(acc.ids, acc.dues, acc.vals, now, later, true) end
  out[#out + 1] = wf_written
  for _, x in ipairs(wf_flush(now)) do out[#out + 1] = x end
  for _, x in ipairs(rel) do out[#out + 1] = x end
end
