-- wfi_del.lua: remove workflows from the index (see workflow_maintain.go).
--- @keys wfi_all wfi_running wfi_succeeded wfi_failed wfi_cancelled wfi_exp wfi_ids wfi_chk
--
-- ARGV: IDs.

for a = 1, #ARGV do
  for k = 1, #KEYS do rcall('ZREM', KEYS[k], ARGV[a]) end
end
return 0
