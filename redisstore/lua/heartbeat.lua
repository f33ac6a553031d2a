-- heartbeat.lua: record a live worker process (see workers.go).
--
-- KEYS: 1 worker registry zset (id -> expiry ms), 2 the worker's record
-- ARGV: 1 worker ID, 2 encoded WorkerInfo, 3 ttl ms
-- The record is "heartbeatMs," .. info and expires with the ttl; expired
-- IDs are dropped from the registry here.

local now, later = now_ms()
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[2], str(now) .. ',' .. ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[1], later + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return now
