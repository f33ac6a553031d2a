-- lib_wf.lua: the ends of workflow tasks' jobs, for the scripts that end
-- jobs: finish, maintain, cancel, requeue, delete (see workflow_deliver.go).
--
-- A queue keeps, in the same slot as its jobs:
--   wm  set   IDs of the workflow tasks' jobs released into the queue
--   wd  hash  job ID -> "seq,outcome," .. result: a task's end not yet
--             applied to its workflow (outcome s succeeded, f failed,
--             c cancelled, d deleted, r requeued)
--   wq  zset  job ID -> when a sweeper may deliver its record (ms)
-- The script that ends a job writes its record in the same atomic step;
-- the process that ran the script delivers it to the workflow at once, and
-- a sweeper (MaintainWorkflows) delivers what a dead process left.

-- WF_LEASE is how long a record is left to the process that wrote or took
-- it before a sweeper may deliver it.
local WF_LEASE = 5000

-- wf_members returns a set of the ids that are workflow tasks of this
-- queue, or nil when none is (one EXISTS when the queue has none).
local function wf_members(wm, ids)
  if #ids == 0 or redis.call('EXISTS', wm) == 0 then return nil end
  local sc = call_chunked_flat('SMISMEMBER', wm, ids)
  local m
  for i = 1, #ids do
    if sc[i] == 1 then
      m = m or {}
      m[ids[i]] = true
    end
  end
  return m
end

-- wf_apply_now, when a script has it (lib_wflocal.lua), applies the ends
-- collected to their workflows in the same step instead of recording them.
local wf_apply_now

-- wf_note collects the end of task job id (outcome and result) for
-- wf_flush.
local wf_written, wf_ids, wf_ocs, wf_res
local function reset_wf()
  wf_written = 0
  wf_ids, wf_ocs, wf_res = {}, {}, {}
end
local function wf_note(id, outcome, result)
  wf_written = wf_written + 1
  wf_ids[wf_written], wf_ocs[wf_written], wf_res[wf_written] = id, outcome, result or ''
end

-- wf_flush writes the collected records and returns them as a flat list
-- of job ID and record. seq orders one job's records: it comes from the
-- queue's token counter, shared with claims, which only grows.
local function wf_flush(wd, wq, tokens, now)
  if wf_written == 0 then return {} end
  local seq = redis.call('INCRBY', tokens, wf_written) - wf_written
  local h, z, out = {}, {}, {}
  local due = now + WF_LEASE
  for k = 1, wf_written do
    local id = wf_ids[k]
    local rec = (seq + k) .. ',' .. wf_ocs[k] .. ',' .. wf_res[k]
    h[#h + 1] = id
    h[#h + 1] = rec
    z[#z + 1] = due
    z[#z + 1] = id
    out[#out + 1] = id
    out[#out + 1] = rec
  end
  call_chunked('HSET', wd, h, 2)
  call_chunked('ZADD', wq, z, 2)
  return out
end
