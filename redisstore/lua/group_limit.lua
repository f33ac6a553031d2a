-- group_limit.lua: set or remove a group's own cap (see groups.go).
--
-- KEYS: 1 ready list (the group structures' keys derive from it,
--       lib_group.lua)
-- ARGV: 1 group, 2 cap (0 removes it), 3 most groups with caps of their
--       own in the queue
-- Returns 1, or 0 when the queue already has ARGV[3] caps and this group
-- had none. A group with ready jobs rejoins the rotation: the new cap may
-- give it room (a claim drops it again if not).

local ready, g, limit = KEYS[1], ARGV[1], tonumber(ARGV[2])
local gl = ext().gkey(ready, 'gl')
if limit == 0 then
  redis.call('HDEL', gl, g)
else
  if redis.call('HEXISTS', gl, g) == 0 and redis.call('HLEN', gl) >= tonumber(ARGV[3]) then return 0 end
  redis.call('HSET', gl, g, limit)
end
ext().groups_recount(ready, redis.call('HGET', ext().gkey(ready, 'c'), 'gmax'))
if redis.call('LLEN', ext().glist(ready, g)) > 0 and ext().group_activate(ready, g) then wake_ready() end
return 1
