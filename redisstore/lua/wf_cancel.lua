-- wf_cancel.lua: cancel a workflow (see workflow_admin.go).
--- @include wfone
--
-- Returns {'gone'}, {'ended'}, or the state, then name and queue of each
-- enqueued task, whose job the caller cancels. Waiting tasks and tasks
-- being released are cancelled here (a job released meanwhile is
-- cancelled by whoever confirms its release).

wf_use()

if rcall('EXISTS', WK.m) == 0 then return {'gone'} end
if rcall('HGET', WK.m, 'st') ~= 'running' then return {'ended'} end
rcall('HSET', WK.m, 'cx', 1)
wf_cancelled = true
local all = rcall('HGETALL', WK.s)
local out = {''}
for a = 1, #all, 2 do
  local t = all[a]
  load_state(t, all[a + 1])
  local st = st_cache[t]
  if st == 'w' or (st == 'e' and rcall('SISMEMBER', WK.rel, t) == 1) then
    set_state(t, 'C', st)
  end
  if st == 'e' then
    out[#out + 1] = t
    out[#out + 1] = info(t).q
  end
end
flush()
end_check(now_ms())
out[1] = rcall('HGET', WK.m, 'st')
return out
