-- config.lua: replace a queue's settings (see stats.go): in conf as given,
-- and in marks, where the scripts read them.
--- @include conf ready kidx/on
--- @keys conf rate_log
--
-- ARGV: 1 paused (0/1), 2 max running, 3 rate limit, 4 rate period ms,
-- 5 retention ms, 6 events max length (negative: no events), 7 cap per
-- group, 8 rate limit per group, 9 its period ms; zero means unset; 10 the
-- kind index (0/1: kidx/on.lua); with 20 arguments, 11-20 are the
-- settings the caller read, in the same order: the settings are replaced
-- only when those stored still equal them (a compare-and-swap), and the
-- reply is '!' when they do not, with nothing changed.
-- Returns the queue's shape. Wakes idle workers: a resumed or widened
-- queue may have claimable jobs. With groups, every group with ready jobs
-- rejoins the rotation (a raised cap may give it room, and a claim drops
-- it again if not) and the running counts are recounted (or dropped
-- without caps).

read_fields()
-- The settings as given (conf, which QueueStats reads), and the copy the
-- scripts read with their marks in one call (marks: lua.go).
local fields = {'paused', 'maxrun', 'rate', 'period', 'ret', 'ev', 'gmax', 'grate', 'gperiod'}
if #ARGV == 20 then
  for i = 1, 9 do
    if (redis.call('HGET', K.conf, fields[i]) or '0') ~= ARGV[10 + i] then return '!' end
  end
  if (redis.call('HGET', K.conf, 'ki') or '0') ~= ARGV[20] then return '!' end
end
for i = 1, 9 do
  if ARGV[i] == '0' then
    redis.call('HDEL', K.conf, fields[i])
    redis.call('HDEL', K.marks, fields[i])
  else
    redis.call('HSET', K.conf, fields[i], ARGV[i])
    redis.call('HSET', K.marks, fields[i], ARGV[i])
  end
end
read_fields()
-- Without a rate limit the claims it counted are forgotten; a new limit
-- or period keeps counting them.
if ARGV[3] == '0' then
  redis.call('HDEL', K.marks, 'rs')
  redis.call('DEL', K.rate_log)
end
set_shape('L', ARGV[2] ~= '0' or ARGV[3] ~= '0')
if ARGV[10] == '1' then redis.call('HSET', K.conf, 'ki', '1') else redis.call('HDEL', K.conf, 'ki') end
kidx_set(ARGV[10] == '1')
ready_config()
wake_ready()
return M.sh or ''
