-- finish.lua: end claimed attempts of one queue (see finish.go), one
-- variant per shape of queue (the ready, limits and kidx slots) and per
-- batch (the wf slot: no workflow task, tasks' ends recorded, or applied
-- here on one server).
--- @flags allow-oom
--- @include conf ends ends_lean ends_fast events wf
--
-- ARGV: 1 the number A of plain acks (no retention or result in the
-- request), then A quads id, member ("id|token"), kind, attempt (or, when
-- ARGV[1] is -A, A pairs id, member, the kind and attempt left for the
-- script to read if an event needs them: finish.go sends pairs to a queue
-- whose last call took a lean way, which writes no events), then
-- groups of seven per other request: outcome (1 ack, 2 retry, 3 garbage,
-- 4 snooze, 5 release, 6 cancel), id, member, then for ack the retention
-- ms (0 = none asked) and the result, for the others the delay ms and the
-- error record (see append_error, "" for none; for a snooze, the ms to
-- hold the queue's claims, "" for none), then kind and attempt. Kind and
-- attempt are the claim's, for the events; an empty kind makes the script
-- read both.
-- Returns one integer per request, plain acks first, in ARGV order: 0
-- done, 1 lease lost, 2 no such job; then what the wf slot adds (the
-- workflow task ends to deliver). Or 0 alone when every request is done
-- and the wf slot adds only its count, 0 (ends.lua: ends_reply); "L"
-- alone, or the integers and "L", on the lean way (ends_lean.lua), and on
-- the fast way (ends_fast.lua) when a lean way serves the queue (its lean
-- mark, or its shape's: ready_lean) and nothing is left to deliver or
-- release. Or {'~', shape} when the variant does not serve the queue.
--
-- The fencing check is the unack member "id|token" itself: a ZREM of it
-- tells whether the claim still held, and ends it. A batch of plain acks
-- costs, the long way, TIME, the settings and marks, a ZREM a job, SCARD,
-- HLEN extras, EXISTS of the waiters and progress, HDEL values, HDEL
-- attempts, HLEN errors, the throughput HINCRBY and the events' XADD:
-- besides the ZREMs, a constant number of calls, each with the whole
-- batch as arguments. The lean and fast ways ask one EXISTS of the four
-- rarer ends' keys instead, and write no event.

read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
local now, later = now_ms()
events_config()
-- One local for the fast way's reply and the long way's (a script's
-- chunk holds at most 200 locals, and the grouped finish's come close).
local out = ends_fast(now, later)
if out then return out end
local q = ends_read()
out = {}
ends_plain(q, out, now, later)
for r = q.plain + 1, q.n do ends_one(q, r, out, now, later) end
ends_write(q, now)
tracked_tail(out, now, later)
flush_events(now)
return ends_reply(out, q.n)
