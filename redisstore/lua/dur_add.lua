-- dur_add.lua: add handler durations of one queue (see durations.go): the
-- durations hash holds "<hour>|<bucket>|<kind>" -> count, and "~h" the
-- last hour trimmed.
--- @keys durations
--
-- ARGV: 1 the current Unix hour, 2 hours kept, then pairs of
--       "<bucket>|<kind>" and a count.
-- Adds each count to its field of the hour; once an hour, drops the fields
-- of hours no longer kept (a pass over the hash, bounded by kinds ×
-- buckets × hours kept).
local hour, keep = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 3, #ARGV, 2 do
  rcall('HINCRBY', K.durations, ARGV[1] .. '|' .. ARGV[i], ARGV[i + 1])
end
if tonumber(rcall('HGET', K.durations, '~h')) ~= hour then
  local old = {}
  for _, f in ipairs(rcall('HKEYS', K.durations)) do
    local h = tonumber(string.match(f, '^(%d+)|'))
    if h and h <= hour - keep then old[#old + 1] = f end
  end
  if #old > 0 then call_chunked('HDEL', K.durations, old, 1) end
  rcall('HSET', K.durations, '~h', hour)
end
return 0
