-- wf/record.lua: the ends of workflow tasks' jobs, recorded in the queue
-- for delivery to their workflows (see workflow_deliver.go), for the
-- scripts that end jobs: finish, maintain, cancel, requeue, delete. The
-- contract of the wf slot, the hooks by which finish lets others track
-- the ends of some jobs (ends.lua):
--
--   tracked_among(ids) -> flags|nil
--                                  which of ids are tracked (workflow
--                                  tasks' jobs): flags[i] is 1 when ids[i]
--                                  is, else 0; nil when none can be
--   track_end(id, outcome, result) a tracked job ended (outcome s
--                                  succeeded, f failed, c cancelled, d
--                                  deleted, r requeued)
--   track_oks(ids, n)              the n tracked jobs ids succeeded,
--                                  without a result: track_end of each,
--                                  in one call
--   tracked_tail(out, now, later)  appends to finish's reply the number
--                                  of records it leaves to deliver, then
--                                  each one's job ID and record
--
-- A queue keeps, in the same slot as its jobs: wf_tasks, the IDs of the
-- workflow tasks' jobs released into the queue; wf_done, job ID ->
-- "seq,outcome," .. result, a task's end not yet applied to its workflow;
-- wf_due, job ID -> when a sweeper may deliver its record (ms). The script
-- that ends a job writes its record in the same atomic step; the process
-- that ran the script delivers it to the workflow at once, and a sweeper
-- (MaintainWorkflows) delivers what a dead process left, after WF_LEASE.
--- @include wfends

local function tracked_among(ids) return wf_flags(ids) end

local function track_end(id, outcome, result) wf_note(id, outcome, result) end

local function track_oks(ids, n)
  for i = 1, n do wf_note(ids[i], 's', '') end
end

local function tracked_tail(out, now)
  out[#out + 1] = wf_written
  for _, x in ipairs(wf_flush(now)) do out[#out + 1] = x end
end

-- ENDS_TRACKED tells whether this file tracks the ends of some jobs: a
-- finish that ends nobody's tasks may take the lean way (ends_lean.lua).
local ENDS_TRACKED = true
