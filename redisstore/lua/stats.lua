-- stats.lua: counts, settings and latency of one queue (read-only; see
-- stats.go).
--- @flags no-writes
--- @include conf depth limits
--- @keys pending unack retry garbage done conf
--- @marks hold kib
--
-- Returns {nowMs, ready, pending, unack, retry, garbage, done, readySinceMs
-- (0 when nothing is ready), setting1, value1, ...}: the settings, then
-- the marks hold and kib when set, and with a rate limit "~used", the
-- claims it counts now (in the smooth mode, the jobs its pace is ahead by).

local now = now_ms()
read_fields()
local out = {now,
  0, -- ready: below, with the oldest
  rcall('ZCARD', K.pending),
  rcall('ZCOUNT', K.unack, '-inf', '(inf'), -- without the sentinel
  rcall('ZCARD', K.retry),
  rcall('ZCARD', K.garbage),
  rcall('ZCARD', K.done),
  0}
out[2], out[8] = ready_depth()
local conf = rcall('HGETALL', K.conf)
for i = 1, #conf do out[#out + 1] = conf[i] end
for _, f in ipairs({'hold', 'kib'}) do
  if M[f] then
    out[#out + 1] = f
    out[#out + 1] = M[f]
  end
end
if C.rate then
  out[#out + 1] = '~used'
  out[#out + 1] = str(rate_live(now))
end
return out
