-- wcmd_send.lua: leave a command for one worker (worker_control.go:
-- SendWorkerCommand). A script, with allow-oom, so that an operator can
-- stop or quiet workers while the server is at maxmemory, where Redis
-- refuses a SET.
--- @flags allow-oom
--- @keys wcmd
--
-- ARGV: 1 the command, 2 its time to live in ms
-- Returns 1.

rcall('SET', K.wcmd, ARGV[1], 'PX', ARGV[2])
return 1
