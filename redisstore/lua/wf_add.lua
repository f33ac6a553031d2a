-- wf_add.lua: add tasks to a running workflow (see workflow.go AddTasks).
--- @include wfone wfadd
--
-- ARGV: as wfadd.lua takes them.
-- Returns {'gone'}, {'ended'}, {'err', code, task, other}, or wfgraph/flow.lua's
-- reply with every task being released (so a retried call finishes what a
-- dead one began).

wf_use()
local r = add_tasks()
if r then return r end
return reply(rcall('SMEMBERS', WK.rel))
