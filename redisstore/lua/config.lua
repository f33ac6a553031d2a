-- config.lua: replace a queue's settings (see stats.go): in conf as given,
-- and in marks, where the scripts read them.
--- @flags allow-oom
--- @include conf ready kidx/on lean
--- @keys conf rate_log
--
-- ARGV: 1 paused (0/1), 2 max running, 3 rate limit, 4 rate period ms,
-- 5 retention ms, 6 events max length (negative: no events), 7 cap per
-- group, 8 rate limit per group, 9 its period ms; zero means unset; 10 the
-- kind index (0/1: kidx/on.lua); 11-14 the smooth modes and bursts of the
-- queue's and the groups' rate (rsm, rb, gsm, gb: zero means unset); 15-23
-- the terms the scripts enforce (store.RateTerms, derived in Go, kept in
-- marks only): the queue's window ms, interval and tolerance µs (rwin,
-- riv, rtol), the groups' (gwin, giv, gtol), the claim's guard µs (rg),
-- and the queue's and the groups' lead µs (rlead, glead). With 37
-- arguments, 24-37 are the settings the caller read (1-14, in the same
-- order): the settings are replaced only when those stored still equal
-- them (a compare-and-swap), and the reply is '!' when they do not, with
-- nothing changed.
-- Returns the queue's shape. Wakes idle workers: a resumed or widened
-- queue may have claimable jobs. With groups, every group with ready jobs
-- rejoins the rotation (a raised cap may give it room, and a claim drops
-- it again if not) and the running counts are recounted (or dropped
-- without caps).

read_fields()
-- New settings may turn events on or off: the next enqueue looks again
-- (lean.lua).
lean_off()
-- The settings as given (conf, which QueueStats reads), and the copy the
-- scripts read with their marks in one call (marks: lua.go).
local fields = {'paused', 'maxrun', 'rate', 'period', 'ret', 'ev', 'gmax', 'grate', 'gperiod', 'ki',
  'rsm', 'rb', 'gsm', 'gb', 'rwin', 'riv', 'rtol', 'gwin', 'giv', 'gtol', 'rg', 'rlead', 'glead'}
local settings = 14 -- fields kept in conf; the rest are terms, in marks only
if #ARGV == #fields + settings then
  for i = 1, settings do
    if (rcall('HGET', K.conf, fields[i]) or '0') ~= ARGV[#fields + i] then return '!' end
  end
end
for i = 1, #fields do
  if i ~= 10 then
    if ARGV[i] == '0' then
      if i <= settings then rcall('HDEL', K.conf, fields[i]) end
      rcall('HDEL', K.marks, fields[i])
    else
      if i <= settings then rcall('HSET', K.conf, fields[i], ARGV[i]) end
      rcall('HSET', K.marks, fields[i], ARGV[i])
    end
  end
end
read_fields()
-- Without a rate limit the claims it counted are forgotten; a new limit
-- or period keeps counting them.
if ARGV[3] == '0' then
  rcall('HDEL', K.marks, 'rs', 'rtat')
  rcall('DEL', K.rate_log)
end
set_shape('L', ARGV[2] ~= '0' or ARGV[3] ~= '0')
if ARGV[10] == '1' then rcall('HSET', K.conf, 'ki', '1') else rcall('HDEL', K.conf, 'ki') end
kidx_set(ARGV[10] == '1')
ready_config()
wake_ready()
return M.sh or ''
