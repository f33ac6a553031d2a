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

-- local_keys returns the keys finish.go passed for each workflow, by ID.
local function local_keys()
  local m = {}
  for i = K_N + 1, #KEYS - 7, 8 do
    local id = string.match(KEYS[i], '^{[^:}]*:wf:(.*)}:m$')
    if id then m[id] = {unpack(KEYS, i, i + 7)} end
  end
  return m
end

-- local_by groups the noted ends by workflow.
local function local_by()
  local by, order = {}, {}
  for k = 1, wf_written do
    local wf, task = string.match(wf_ids[k], '^([^~]*)~(.*)$')
    if wf then
      local a = by[wf]
      if not a then
        a = {n = 0, tasks = {}, seqs = {}, ocs = {}, res = {}, at = {}}
        by[wf] = a
        order[#order + 1] = wf
      end
      local m = a.n + 1
      a.n = m
      a.tasks[m], a.seqs[m], a.ocs[m], a.res[m], a.at[m] = task, false, wf_ocs[k], wf_res[k], k
    end
  end
  return by, order
end

local function tracked_among(ids) return wf_members(ids) end

local function track_end(id, outcome, result) wf_note(id, outcome, result) end

-- tracked_tail applies the noted ends to their workflows, enqueues what they
-- release into this queue, and appends to finish's reply the records it
-- could not apply (none unless a workflow's keys were missing: 0), then
-- the releases it leaves to the caller. The ends carry no seq: applied in
-- the step that ended the job, no record of an earlier run can come after
-- them (a task runs again only after a requeue, whose record has a later
-- seq).
local function tracked_tail(out, now, later)
  local by, order = local_by()
  local keyed = local_keys()
  local acc, rel, left = {ids = {}, dues = {}, vals = {}}, {}, {}
  for _, wf in ipairs(order) do
    local a = by[wf]
    if keyed[wf] then
      wf_use(keyed[wf])
      if WM.st then
        apply_ends(a.n, a.tasks, a.seqs, a.ocs, a.res, now)
        local_settle(wf, acc, rel, now)
      end
    else
      for m = 1, a.n do left[#left + 1] = a.at[m] end
    end
  end
  if #acc.ids > 0 then release_into(acc.ids, acc.dues, acc.vals, now, later, true) end
  -- Ends of workflows without keys: recorded for delivery.
  local ids, ocs, res = wf_ids, wf_ocs, wf_res
  reset_wfends()
  for _, k in ipairs(left) do wf_note(ids[k], ocs[k], res[k]) end
  out[#out + 1] = wf_written
  for _, x in ipairs(wf_flush(now)) do out[#out + 1] = x end
  for _, x in ipairs(rel) do out[#out + 1] = x end
end
