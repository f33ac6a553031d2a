-- waitjob.lua: register a waiter for a job's end (see wait_job.go).
--- @keys jobs garbage done waited
--
-- ARGV: 1 id
-- Returns 0 when there is no such job, 1 when it has ended (it is in done
-- or garbage), 2 when it has not: the ID is then in the waited set, and
-- the script that ends it publishes on "<prefix>:done" (waiters.lua).

local id = ARGV[1]
if rcall('HEXISTS', K.jobs, id) == 0 then return 0 end
if rcall('ZSCORE', K.done, id) or rcall('ZSCORE', K.garbage, id) then return 1 end
rcall('SADD', K.waited, id)
return 2
