-- wf_apply.lua: apply task ends to their workflow (see workflow_deliver.go).
--- @include wfone
--
-- ARGV: four per end: task, the record's seq, outcome (s, f, c, d, r),
-- result; none to only list the tasks being released.
-- Returns {'gone'} when the workflow is not stored, else wfgraph/flow.lua's
-- reply with the tasks these ends released; when one end was applied
-- before (a delivery a dead process left half done), or with no ends,
-- every task still being released, so that the caller finishes the job.

wf_use()

if rcall('EXISTS', WK.m) == 0 then return {'gone'} end
local n = #ARGV / 4
local tasks, seqs, ocs, res = {}, {}, {}, {}
for k = 1, n do
  tasks[k], seqs[k], ocs[k], res[k] = ARGV[4 * k - 3], ARGV[4 * k - 2], ARGV[4 * k - 1], ARGV[4 * k]
end
local again = n == 0 or apply_ends(n, tasks, seqs, ocs, res, now_ms())
if again then return reply(rcall('SMEMBERS', WK.rel)) end
return reply(released)
