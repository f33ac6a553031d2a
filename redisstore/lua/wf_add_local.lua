-- wf_add_local.lua: wf_add.lua on one server (see workflow.go), in the
-- slot of one queue's keys, with the workflow's and the index's: the
-- tasks it releases whose jobs go to this queue are enqueued in the same
-- step (wfsettle.lua), the others left being released under a mark for
-- the sweeper.
--- @include conf wfone wfadd wfsettle events
--
-- ARGV: as wfadd.lua takes them.
-- Returns {'gone'}, {'ended'}, {'err', code, task, other}, or wfgraph/flow.lua's
-- reply with the tasks it left being released (every task being released,
-- when it added none); or {'~', shape} when the
-- variant does not serve the queue (conf.lua), having done nothing.

wf_inline = true
read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
events_config()
wf_use()
local r, added = add_tasks()
if r then return r end
-- A call that adds nothing (a retried handler's, whose first call added
-- its tasks and died) returns every task being released, as wf_add.lua
-- does, so that it finishes what the dead call began rather than a
-- sweeper after WF_LEASE.
if added == 0 then return reply(rcall('SMEMBERS', WK.rel)) end
local now, later = now_ms()
local wf = string.match(WK.m, '^{[^:}]*:wf:(.*)}:m$')
local acc, rel = {ids = {}, dues = {}, vals = {}}, {}
local_settle(wf, acc, rel, now)
if #acc.ids > 0 then release_into(acc.ids, acc.dues, acc.vals, now, later, true) end
flush_events(now)
local out = reply({})
for i = 1, #rel, 4 do
  out[#out + 1] = rel[i + 1]
  out[#out + 1] = rel[i + 2]
  out[#out + 1] = rel[i + 3]
end
return out
