-- wfi_set.lua: put a workflow in the index under its state (see
-- workflow_index.go).
--
-- KEYS: 1 all (created ms), 2 running, 3 succeeded, 4 failed, 5 cancelled
--       (created ms), 6 expiry (ms), 7 IDs (lexical), 8 checks
-- ARGV: 1 id, 2 state, 3 created ms, 4 expiry ms (0 while running)

local id, st = ARGV[1], ARGV[2]
redis.call('ZADD', KEYS[1], ARGV[3], id)
redis.call('ZADD', KEYS[7], 0, id)
local z = {running = KEYS[2], succeeded = KEYS[3], failed = KEYS[4], cancelled = KEYS[5]}
for name, key in pairs(z) do
  if name == st then redis.call('ZADD', key, ARGV[3], id) else redis.call('ZREM', key, id) end
end
if tonumber(ARGV[4]) > 0 then
  redis.call('ZADD', KEYS[6], ARGV[4], id)
else
  redis.call('ZREM', KEYS[6], id)
end
return 0
