-- wfi_set.lua: put a workflow in the index under its state (see
-- workflow_keys.go).
--- @keys wfi_all wfi_running wfi_succeeded wfi_failed wfi_cancelled wfi_exp wfi_ids wfi_chk
--
-- ARGV: 1 id, 2 state, 3 created ms, 4 expiry ms (0 while running)

local id, st = ARGV[1], ARGV[2]
redis.call('ZADD', K.wfi_all, ARGV[3], id)
redis.call('ZADD', K.wfi_ids, 0, id)
local z = {running = K.wfi_running, succeeded = K.wfi_succeeded, failed = K.wfi_failed, cancelled = K.wfi_cancelled}
for name, key in pairs(z) do
  if name == st then redis.call('ZADD', key, ARGV[3], id) else redis.call('ZREM', key, id) end
end
if tonumber(ARGV[4]) > 0 then
  redis.call('ZADD', K.wfi_exp, ARGV[4], id)
else
  redis.call('ZREM', K.wfi_exp, id)
end
return 0
