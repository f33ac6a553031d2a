-- wf_due.lua: what MaintainWorkflows has to do now, read in one call
-- (workflow_maintain.go): an idle worker runs it every couple of seconds.
--- @flags no-writes
--- @keys wfi_exp wfi_chk wfi_steps
--
-- ARGV: 1 batch
-- Returns {now ms, {chk IDs due}, {exp IDs due}, the score of the first
-- exp entry after those ('' when none), {steps marks due}}: at most batch
-- each, due meaning a score up to now.

local now = now_ms()
local nows = ms_str(now)
local n = tonumber(ARGV[1])
local chk = rcall('ZRANGE', K.wfi_chk, '-inf', nows, 'BYSCORE', 'LIMIT', 0, n)
local exp = rcall('ZRANGE', K.wfi_exp, '-inf', nows, 'BYSCORE', 'LIMIT', 0, n)
local after = rcall('ZRANGE', K.wfi_exp, #exp, #exp, 'WITHSCORES')
local steps = rcall('ZRANGE', K.wfi_steps, '-inf', nows, 'BYSCORE', 'LIMIT', 0, n)
return {now, chk, exp, after[2] or '', steps}
