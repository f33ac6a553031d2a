-- wf_drop.lua: delete an ended workflow past its retention (see
-- workflow_maintain.go).
--- @include wfone
--
-- ARGV: 1 "check" to return the task infos without deleting, or "delete".
-- Returns {'gone'}, {'running'} (re-opened: keep it), the HGETALL of the
-- infos for "check", or {'ok'}.

wf_use()

if redis.call('EXISTS', WK.m) == 0 then return {'gone'} end
if redis.call('HGET', WK.m, 'st') == 'running' then return {'running'} end
if ARGV[1] == 'check' then return redis.call('HGETALL', WK.i) end
redis.call('DEL', WK.m, WK.s, WK.r, WK.i, WK.d, WK.p, WK.o, WK.rel)
return {'ok'}
