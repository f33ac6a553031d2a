-- wcmd_take.lua: take the command waiting for one worker
-- (worker_control.go: TakeWorkerCommand): GET and DEL at once. A script,
-- with allow-oom: a MULTI was refused at maxmemory, and GETDEL would need
-- one more ACL right.
--- @flags allow-oom
--- @keys wcmd
--
-- Returns the command, or false when none waits.

local v = rcall('GET', K.wcmd)
if v then rcall('DEL', K.wcmd) end
return v
