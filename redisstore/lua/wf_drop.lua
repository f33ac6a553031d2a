-- wf_drop.lua: delete an ended workflow past its retention (see
-- workflow_maintain.go).
--- @include wfone
--
-- ARGV: 1 "check" to return the task infos without deleting, or "delete".
-- Returns {'gone'}, {'running'} (re-opened: keep it), the HGETALL of the
-- infos for "check", or {'ok'}.

wf_use()

if rcall('EXISTS', WK.m) == 0 then return {'gone'} end
if rcall('HGET', WK.m, 'st') == 'running' then return {'running'} end
if ARGV[1] == 'check' then return rcall('HGETALL', WK.i) end
rcall('DEL', WK.m, WK.s, WK.r, WK.i, WK.d, WK.p, WK.o, WK.rel)
return {'ok'}
