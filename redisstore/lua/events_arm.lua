-- events_arm.lua: ask the queue's scripts to publish on "<prefix>:ev"
-- while a reader waits (see events.go and lib_events.lua).
--
-- KEYS: 1 config hash
-- ARGV: 1 how long the reader may wait, in ms
-- Sets config field "evw" to now + ARGV[1] unless it is already later
-- (another reader waits longer).

local now = now_ms()
local upto = now + tonumber(ARGV[1])
if (tonumber(redis.call('HGET', KEYS[1], 'evw')) or 0) < upto then
  redis.call('HSET', KEYS[1], 'evw', str(upto))
end
return 1
