-- events_arm.lua: ask the queue's scripts to publish on "<prefix>:ev"
-- while a reader waits (see events.go and events.lua).
--- @marks evw
--
-- ARGV: 1 how long the reader may wait, in ms
-- Sets the mark evw to now + ARGV[1] unless it is already later (another
-- reader waits longer).

local now = now_ms()
local upto = now + tonumber(ARGV[1])
read_fields()
if (tonumber(M.evw) or 0) < upto then
  redis.call('HSET', K.marks, 'evw', str(upto))
end
return 1
