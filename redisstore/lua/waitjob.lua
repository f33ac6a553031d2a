-- waitjob.lua: register a waiter for a job's end (see wait_job.go).
--
-- KEYS: 1 jobs hash, 2 garbage zset, 3 done zset, 4 waited set
-- ARGV: 1 id
-- Returns 0 when there is no such job, 1 when it has ended (it is in done
-- or garbage), 2 when it has not: the ID is then in the waited set, and
-- the script that ends it publishes on "<prefix>:done" (lib_events.lua).

local id = ARGV[1]
if redis.call('HEXISTS', KEYS[1], id) == 0 then return 0 end
if redis.call('ZSCORE', KEYS[3], id) or redis.call('ZSCORE', KEYS[2], id) then return 1 end
redis.call('SADD', KEYS[4], id)
return 2
