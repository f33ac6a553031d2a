-- parts_declare.lua: record a queue's partition count
-- (Config.Partitions, partition.go: syncPartitions) unless the queue was
-- used unpartitioned: one script, so that no process registers it
-- between the look and the write (queues_register.lua).
--- @keys queues parts
--
-- ARGV: 1 queue, 2 partition count
-- Returns {the recorded count, 1 when this call recorded it}, or {-1, 0}
-- when the queue is registered without a count.

local n = rcall('HGET', K.parts, ARGV[1])
if n then return {tonumber(n), 0} end
if rcall('SISMEMBER', K.queues, ARGV[1]) == 1 then return {-1, 0} end
rcall('HSET', K.parts, ARGV[1], ARGV[2])
return {tonumber(ARGV[2]), 1}
