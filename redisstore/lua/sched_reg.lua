-- sched_reg.lua: record periodic schedules for inspection, a stored one
-- only while it is stored (see schedules.go, RegisterSchedules).
--- @keys schedules sdefs
--
-- ARGV: triples of the schedule's field ("<queue>:<name>"), its encoded
-- record, and '1' for a stored schedule ('0' for one declared in code).
-- A stored schedule deleted since its scheduler read it is left out.
-- Returns how many were recorded.

local out, n = {}, 0
for i = 1, #ARGV, 3 do
  if ARGV[i + 2] == '0' or rcall('HEXISTS', K.sdefs, ARGV[i]) == 1 then
    out[2 * n + 1], out[2 * n + 2] = ARGV[i], ARGV[i + 1]
    n = n + 1
  end
end
if n > 0 then call_chunked('HSET', K.schedules, out, 2) end
return n
