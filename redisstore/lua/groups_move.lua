-- groups_move.lua: Migrate's step 1 -> 2 on one queue
-- (layout_migrate_groups.go). The queue pushes its grouped jobs to the
-- groups' lists from now on (the mark gv), and up to ARGV[1] jobs of
-- layout 1's sorted set move, from its end, to the front of their
-- groups' lists: at every step a group's jobs keep their order, as what
-- the sorted set still holds is older than what the lists hold, and reads
-- take it first (groups/store.lua).
--- @include conf groups/store
--
-- ARGV: 1 most jobs to move (a string of digits)
-- Returns {jobs moved, jobs the sorted set still holds}.

read_fields()
if M.gv ~= 'l' then
  rcall('HSET', K.marks, 'gv', 'l')
  M.gv = 'l'
end
return {GS.move(ARGV[1]), rcall('ZCARD', K.g_ready)}
