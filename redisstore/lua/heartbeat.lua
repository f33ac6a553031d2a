-- heartbeat.lua: record a live worker process (see workers.go).
--- @flags allow-oom
--- @keys workers worker
--
-- ARGV: 1 worker ID, 2 encoded WorkerInfo, 3 ttl ms
-- The record is "heartbeatMs," .. info and expires with the ttl; expired
-- IDs are dropped from the registry here.

local now, later = now_ms()
local ttl = tonumber(ARGV[3])
rcall('SET', K.worker, str(now) .. ',' .. ARGV[2], 'PX', ttl)
rcall('ZADD', K.workers, later + ttl, ARGV[1])
rcall('ZREMRANGEBYSCORE', K.workers, '-inf', now)
return now
