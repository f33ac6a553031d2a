-- group_limit.lua: set or remove a group's own cap (see groups.go).
--- @include conf groups/store groups/rotation groups/caps
--
-- ARGV: 1 group, 2 cap (0 removes it), 3 most groups with caps of their
-- own in the queue
-- Returns 1, or 0 when the queue already has ARGV[3] caps and this group
-- had none. A group with ready jobs rejoins the rotation: the new cap may
-- give it room (a claim drops it again if not).

read_fields()
local g, limit = ARGV[1], tonumber(ARGV[2])
if limit == 0 then
  rcall('HDEL', K.g_caps, g)
else
  if rcall('HEXISTS', K.g_caps, g) == 0 and rcall('HLEN', K.g_caps) >= tonumber(ARGV[3]) then return 0 end
  rcall('HSET', K.g_caps, g, limit)
end
groups_recount()
if GS.len(g) > 0 and group_activate(g) then wake_ready() end
return 1
