-- wf_apply.lua: apply task ends to their workflow (see workflow_deliver.go).
--
-- KEYS: the workflow's (lib_wfgraph.lua).
-- ARGV: four per end: task, the record's seq, outcome (s, f, c, d, r),
--       result; none to only list the tasks being released.
-- Returns {'gone'} when the workflow is not stored, else lib_wfgraph's
-- reply with the tasks these ends released; when one end was applied
-- before (a delivery a dead process left half done), or with no ends,
-- every task still being released, so that the caller finishes the job.

if redis.call('EXISTS', WK.m) == 0 then return {'gone'} end
local n = #ARGV / 4
local tasks = {}
for k = 1, n do tasks[k] = ARGV[4 * k - 3] end
local again = n == 0
if n > 0 then
  prefetch(tasks)
  prefetch_dependents(tasks)
  local seqs = call_chunked_flat('HMGET', WK.q, tasks)
  local last, newseq, results = {}, {}, {}
  for k = 1, n do
    local t, seq, oc = tasks[k], tonumber(ARGV[4 * k - 2]), ARGV[4 * k - 1]
    local cur = state(t)
    local prev = last[t] or tonumber(seqs[k]) or 0
    if not cur then
      -- not a task of this workflow: nothing to apply
    elseif seq <= prev then
      again = true
    else
      last[t] = seq
      newseq[#newseq + 1] = t
      newseq[#newseq + 1] = seq
      if oc == 'r' then
        if cur == 'F' or cur == 'C' then
          set_state(t, 'e', cur)
          reopen(t)
        end
      elseif cur == 'e' then
        -- Only a running task ends: the end of a done task's job run
        -- again (requeued from done) leaves its workflow as it is.
        local new = ({s = 'S', f = 'F', c = 'C', d = 'F'})[oc]
        if new and new ~= cur then
          set_state(t, new, cur)
          if new == 'S' and ARGV[4 * k] ~= '' then
            results[#results + 1] = t
            results[#results + 1] = ARGV[4 * k]
          end
          propagate(t, new)
        end
      end
    end
  end
  if #newseq > 0 then call_chunked('HSET', WK.q, newseq, 2) end
  if #results > 0 then call_chunked('HSET', WK.o, results, 2) end
  flush()
  end_check(now_ms())
end
if again then return reply(redis.call('SMEMBERS', WK.rel)) end
return reply(released)
