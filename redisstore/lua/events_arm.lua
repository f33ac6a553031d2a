-- events_arm.lua: say that a reader wants the queue's events (the mark
-- evr: entries are written until then, see events.lua) and, while it
-- waits, that scripts should publish on "<prefix>:ev" (the mark evw).
--- @include lean
--- @keys events
--- @marks evw evr evs evh
--
-- ARGV: 1 how long the reader may wait, in ms (0: it does not wait),
--       2 how long its interest lasts, in ms
-- Moves each mark to now plus its duration unless it is already later
-- (another reader waits or reads longer). When steps skipped their
-- entries since the last one (mark evs), it first marks a hole in the
-- numbering after the newest entry (evh: the number of the entry after
-- the hole, which the next entry takes): readers before it learn they lost
-- events, readers from now on do not; a stream that expired meanwhile
-- starts a new generation instead. Takes the lean mark away: the
-- queue's enqueues write entries again.

local now = now_ms()
read_fields()
lean_off()
if M.evs then
  -- (PERSIST through pcall: an ACL user without +persist, whose
  -- streams get no TTL either, reads on.)
  if redis.pcall('PERSIST', K.events) == 0 and rcall('EXISTS', K.events) == 0 then
    -- The stream expired while nobody read it (events.lua,
    -- ev_recording): the next entry starts a new generation, so that
    -- readers of the old one learn it started over.
    rcall('HDEL', K.marks, 'evg', 'evh')
  else
    local newest = rcall('XREVRANGE', K.events, '+', '-', 'COUNT', 1)[1]
    local seq = 1
    if newest then seq = (tonumber(string.match(newest[1], '^1%-(%d+)$')) or 0) + 2 end
    if (tonumber(M.evh) or 0) < seq then rcall('HSET', K.marks, 'evh', str(seq)) end
  end
  rcall('HDEL', K.marks, 'evs')
end
local wait, want = tonumber(ARGV[1]), tonumber(ARGV[2])
if wait > 0 and (tonumber(M.evw) or 0) < now + wait then
  rcall('HSET', K.marks, 'evw', str(now + wait))
end
local upto = now + math.max(want, wait)
if (tonumber(M.evr) or 0) < upto then
  rcall('HSET', K.marks, 'evr', str(upto))
end
return 1
