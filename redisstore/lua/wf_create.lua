-- wf_create.lua: store a new workflow with every task (see workflow.go).
--- @include wfone wfcreate
--
-- ARGV: as wfcreate.lua takes them.
-- Returns {'dup'} when the ID is held, else wfgraph/flow.lua's reply with
-- the tasks released (those without dependencies), their queue and
-- payload left empty: the caller has them.

wf_use()
local now = now_ms()
local roots = create_workflow(now, nil, '')
if not roots then return {'dup'} end
return create_reply(roots, now, '')
