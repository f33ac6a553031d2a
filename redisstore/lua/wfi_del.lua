-- wfi_del.lua: remove workflows from the index (see workflow_maintain.go).
--
-- KEYS: wfi_set.lua's.
-- ARGV: IDs.

for a = 1, #ARGV do
  for k = 1, #KEYS do redis.call('ZREM', KEYS[k], ARGV[a]) end
end
return 0
