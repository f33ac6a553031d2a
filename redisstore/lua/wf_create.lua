-- wf_create.lua: store a new workflow with every task (see workflow.go).
--- @include wfone wfcreate
--
-- ARGV: as wfcreate.lua takes them.
-- Returns 'dup' and the tasks being released when the ID is held
-- (wfcreate.lua's dup_reply), {'expired'} when the tasks its
-- attempt staged are gone (wfcreate.lua), else wfgraph/flow.lua's reply with
-- the tasks released (those without dependencies), their queue and
-- payload left empty: the caller has them (and those of the staged
-- tasks released, which the reply leaves out).

wf_use()
local now = now_ms()
local roots = create_workflow(now, nil, '')
if roots == false then return dup_reply() end
if roots == nil then return {'expired'} end
return create_reply(roots, now, '')
