-- wfi_set.lua: put a workflow in the index under its state (see
-- workflow_keys.go).
--- @include wfiwrite
--- @keys wfi_chk
--
-- ARGV: 1 id, 2 state, 3 created ms, 4 expiry ms (0 while running)

index_write(ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
return 0
