-- wfends.lua: the ends of workflow tasks' jobs, noted by the scripts that
-- end jobs and recorded in the queue for delivery (wf/record.lua says
-- how), for the wf slot's files.
--- @keys wf_tasks wf_done wf_due tokens

-- wf_members returns a set of the ids that are workflow tasks of this
-- queue, or nil when none is (one EXISTS when the queue has none).
local function wf_members(ids)
  return members_among(K.wf_tasks, ids)
end

-- ONE_TASK is wf_flags' reply for one ID that is a task's: never
-- written to.
local ONE_TASK = {1}

-- wf_flags returns, for each of ids, 1 when it is a workflow task of this
-- queue and 0 when not (SMISMEMBER's reply, by position: cheaper than
-- wf_members' set for a batch), or nil when the queue has none. One ID
-- (a chain's step, a lone ack) takes one SISMEMBER, which says 0 for a
-- queue without tasks too, where a batch takes an EXISTS first.
local function wf_flags(ids)
  local n = #ids
  if n == 1 then
    if rcall('SISMEMBER', K.wf_tasks, ids[1]) == 1 then return ONE_TASK end
    return nil
  end
  if n == 0 or rcall('EXISTS', K.wf_tasks) == 0 then return nil end
  return call_chunked_flat('SMISMEMBER', K.wf_tasks, ids)
end

-- wf_note collects the end of task job id (outcome and result) for
-- wf_flush.
local wf_written, wf_ids, wf_ocs, wf_res
local function reset_wfends()
  -- The tables are kept while the last call wrote nothing to them.
  if wf_written ~= 0 or not wf_ids then wf_ids, wf_ocs, wf_res = {}, {}, {} end
  wf_written = 0
end
local function wf_note(id, outcome, result)
  wf_written = wf_written + 1
  wf_ids[wf_written], wf_ocs[wf_written], wf_res[wf_written] = id, outcome, result or ''
end

-- NONE is an empty list to read, never to write.
local NONE = {}

-- wf_flush writes the collected records and returns them as a flat list
-- of job ID and record. seq orders one job's records: it comes from the
-- queue's token counter, shared with claims, which only grows.
local function wf_flush(now)
  if wf_written == 0 then return NONE end
  local seq = rcall('INCRBY', K.tokens, wf_written) - wf_written
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
  call_chunked('HSET', K.wf_done, h, 2)
  call_chunked('ZADD', K.wf_due, z, 2)
  return out
end
