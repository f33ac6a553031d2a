-- wf_create_local.lua: wf_create.lua on one server (see workflow.go), in
-- the slot of one queue's keys, with the workflow's and the index's: the
-- tasks without dependencies whose jobs go to this queue are enqueued in
-- the same step, and the workflow indexed. The others are left being
-- released, as wf_create.lua leaves them, and the workflow marked for a
-- sweeper to look at after WF_LEASE (wfi_steps), as workflow.go's markCheck
-- does.
--- @include conf wfone wfcreate wfrel wfiwrite events
--- @keys wfi_steps
--
-- ARGV: as wfcreate.lua takes them.
-- Returns as wf_create.lua (the staged tasks released are the caller's
-- to name: they are not in the reply), a duplicate's with the tasks being
-- released (wfcreate.lua's dup_reply); or {'~', shape} when the variant
-- does not serve the queue (conf.lua), having done nothing.

read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
events_config()
wf_use()
local now, later = now_ms()
local wf = ARGV[1]
-- A task's info starts with its queue's name. When tasks staged before
-- were released, this step enqueues none: the caller enqueues them all,
-- in the order they were added.
local head = ARGV[6] == '0' and QUEUE .. '\n' or nil
local roots, ids, dues, vals, staged_rel = create_workflow(now, head, 'running')
if roots == false then return dup_reply() end
if roots == nil then return {'expired'} end
if #ids > 0 then release_into(ids, dues, vals, now, later, true) end
-- The staged tasks released wait in rel too, for the caller.
-- The creation's mark (workflow.go's chkMark).
if #roots > 0 or staged_rel > 0 then rcall('ZADD', K.wfi_steps, now + WF_LEASE, wf .. '~+') end
-- Into the index as running: the state create_workflow recorded as
-- indexed (ist).
index_write(wf, 'running', ms_str(now), 0)
flush_events(now)
return create_reply(roots, now, 'running')
