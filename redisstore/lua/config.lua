-- config.lua: replace a queue's settings (see stats.go).
--
-- KEYS: 1 config hash, 2 rate log (lib_rate.lua)
-- ARGV: 1 paused (0/1), 2 max running, 3 rate limit, 4 rate period ms,
--       5 retention ms, 6 events max length (negative: no events), 7 cap
--       per group, 8 rate limit per group, 9 its period ms; zero means
--       unset; 10 the kind index (0/1: lib_kidx.lua).
-- Wakes idle workers: a resumed or widened queue may have claimable jobs.
-- Every group with ready jobs rejoins the rotation (lib_group.lua): a
-- raised cap may give it room, and a claim drops it again if not; the
-- running counts are recounted (or dropped without caps).

local c = KEYS[1]
local fields = {'paused', 'maxrun', 'rate', 'period', 'ret', 'ev', 'gmax', 'grate', 'gperiod'}
for i = 1, 9 do
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
kidx().set(c, c, ARGV[10] == '1') -- c stands for the jobs hash: same prefix
if ARGV[3] == '0' then
  redis.call('HDEL', c, 'rs')
  redis.call('DEL', KEYS[2])
end
local ready = string.sub(c, 1, -2) .. 'r'
if redis.call('HGET', c, 'gm') then
  ext().groups_recount(ready, ARGV[7])
  for _, g in ipairs(redis.call('SMEMBERS', ext().gkey(ready, 'gk'))) do ext().group_activate(ready, g) end
end
wake_ready()
return 1
