-- claim.lua: move up to max jobs from ready to unack (see claim.go), one
-- variant per shape of queue: the ready slot (plain, priority levels,
-- groups) and the limits slot (MaxRunning and RateLimit, or none).
--- @flags allow-oom
--- @include conf ready limits claimed claim_lean events
--- @conf paused rg
--- @marks hold
--
-- ARGV: 1 max, 2 lease ms, 3 RetryIn ms for a paused queue, 4 worker ID,
-- 5 "l" when the store asks for the lean way (claim_lean.lua), else '',
-- then, when the store keeps a note of its claims (claimed.lua:
-- claim_note), 6 the claimer, 7 the note's slot, 8 the claim's seq
-- Returns {nowMs, deadlineMs, retryInMs, token, startWithinUs} when it
-- claims nothing; else that, then n, the jobs claimed, id1, value1, ...
-- idn, valuen (a value '' for an ID without a job, which the caller
-- skips), then m and m quadruples (index, attempt, errors, dueMs) for the
-- jobs claimed before or promoted (the others are at attempt 1, with no
-- errors, and went straight to ready at enqueue: most jobs cost two
-- values of the reply, not six), then, when some job waits before it
-- starts, afterUs1 ... afterUsn (how long: a smooth rate, see
-- limits_after; 0 to start at once). Every job of the call has the
-- token; startWithinUs is the rate limits' guard (the setting rg,
-- store.QueueConfig.ClaimGuard), 0 without limits; dueMs is when the
-- job fell due. Or {'~', shape} when the variant does not serve the
-- queue. The lean way (claim_lean.lua) ends each of its replies with "L".
--
-- Cost per call, whatever the batch: TIME, the settings and marks (one
-- HMGET each), the ready slot's pop (one LPOP on a plain queue), HMGET
-- values and attempts (and errors of jobs attempted before), INCR, ZRANGE
-- + ZADD unack, HSET attempts, XADD (+ wake); the limits slot's reads
-- when it has limits. No call per job.

read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
local max, lease, paused_ms = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now, later = now_ms()
if C.paused == '1' then return {now, 0, paused_ms, 0, 0} end
local hold = tonumber(M.hold)
if hold and hold > now then return {now, 0, hold - now, 0, 0} end
events_config()

local n, retry_in, limited = limits_room(max, now, paused_ms)
if n == 0 then
  -- Nothing to wait for when nothing is ready: a signal comes first.
  if not ready_any() then retry_in = 0 end
  return {now, 0, retry_in, 0, 0}
end
local ids, held_ms, more, after = ready_pop(n, now)
if #ids == 0 then return {now, 0, held_ms, 0, 0} end

local out, took = claim_take(ids, now, later + lease, ARGV[4], ev_writes(now))
limits_note(took, now)
out[5] = tonumber(C.rg) or 0
-- Each job's wait before it starts: its queue's pace and its group's
-- (only a smooth rate pays for it).
if limits_paced() or (after and next(after)) then
  local us, base = now_us(), #out
  for i = 1, #ids do
    out[base + i] = math.max(limits_after(i, us), after and after[i] or 0)
  end
end
flush_events(now)
if #ids == n and more then
  claim_wake(now)
  if limited then out[3] = retry_in end
end
-- Held groups come back with no signal: their holds' end is the RetryIn.
if held_ms > 0 and (out[3] == 0 or held_ms < out[3]) then out[3] = held_ms end
return out
