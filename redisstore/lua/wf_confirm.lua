-- wf_confirm.lua: confirm that tasks being released are in their queues
-- (see workflow_deliver.go).
--- @include wfone
--
-- ARGV: task names.
-- Returns name and queue of each confirmed task that is cancelled (the
-- workflow was cancelled while it was being released): the caller cancels
-- its job.

wf_use()

call_chunked('SREM', WK.rel, ARGV, 1)
call_chunked('HDEL', WK.p, ARGV, 1)
local out = {}
if wf_cancelled then
  prefetch(ARGV)
  for a = 1, #ARGV do
    if state(ARGV[a]) == 'C' then
      out[#out + 1] = ARGV[a]
      out[#out + 1] = info(ARGV[a]).q
    end
  end
end
return out
