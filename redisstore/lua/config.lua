-- config.lua: replace a queue's settings (see stats.go).
--
-- KEYS: 1 config hash, 2 rate log (lib_rate.lua)
-- ARGV: 1 paused (0/1), 2 max running, 3 rate limit, 4 rate period ms,
--       5 retention ms, 6 events max length (negative: no events); zero
--       means unset.
-- Wakes idle workers: a resumed or widened queue may have claimable jobs.

local c = KEYS[1]
local fields = {'paused', 'maxrun', 'rate', 'period', 'ret', 'ev'}
for i = 1, 6 do
  if ARGV[i] == '0' then
    redis.call('HDEL', c, fields[i])
  else
    redis.call('HSET', c, fields[i], ARGV[i])
  end
end
-- Without a rate limit the claims it counted are forgotten; a new limit
-- or period keeps counting them. (rw and rn were the fixed window of
-- earlier versions.)
redis.call('HDEL', c, 'rw', 'rn')
if ARGV[3] == '0' then
  redis.call('HDEL', c, 'rs')
  redis.call('DEL', KEYS[2])
end
wake_ready()
return 1
