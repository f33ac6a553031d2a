-- maintain.lua: the scheduler's duties on one queue (see maintain.go), one
-- variant per shape of queue (the ready and kidx slots).
--- @flags allow-oom
--- @include conf duties depth throughput kidx ready wfends events lean
--- @marks sw
--
-- ARGV: 1 batch, 2 garbage max age ms (0 = none), 3 garbage max count
-- (0 = none)
-- Returns {promoted, reclaimed, collected, more (0/1), nextInUs (µs until
-- the earliest due time, from the server's clock; -1 when nothing is
-- scheduled), workflow task ends recorded, backlog (0/1: jobs
-- are ready)}, or {'~', shape} when the variant does not serve the queue.

read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
local batch = tonumber(ARGV[1])
local max_age, max_count = tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
events_config()

local p1, m1 = promote(K.pending, now, batch)
local p2, m2 = promote(K.retry, now, batch)
local reclaimed, m3 = reclaim(now, batch, LEASE_EXPIRED_TEXT)
local collected, m4, over = collect(now, batch, max_age, max_count)
local more = m1 or m2 or m3 or m4
flush_events(now)
-- Index the jobs that were there when the kind index was turned on, two
-- batches a call, until done.
if not index_build(2 * batch) then more = true end

local next_at = next_due(now, max_age, over)
-- Once a minute, the queue's depth and latency for its history (and the
-- sweep of what quiet parts of the ready state keep); and whether jobs
-- are ready, for the scheduler to come back next minute. Then too, a
-- queue with a shape loses a lean mark that a release before the mark
-- left when it gave the queue its shape (lean.lua).
local has = sample_depth(now, ready_depth)
if has == nil then
  has = ready_any()
  -- A sweep that found much to forget goes on at every pass (groups/rate.lua).
  if M.gwm then ready_sweep(now) end
else
  ready_sweep(now)
  if M.sh and M.sh ~= '' then lean_off() end
end
local next_in = -1
-- In µs, from TIME's own reading: a scheduler that waits exactly that
-- long wakes at the due time, which pending's scores keep to the µs.
if next_at then next_in = math.max(math.ceil(next_at * 1000 - now_us()), 0) end
-- The time the schedulers come back to this queue, for claims: a lease
-- that ends no earlier needs no wake-up (claimed.lua). None when idle.
local sw = next_at
if more then sw = now end
if sw then
  if tonumber(M.sw) ~= sw then rcall('HSET', K.marks, 'sw', sw) end
elseif M.sw then
  rcall('HDEL', K.marks, 'sw')
end
wf_flush(now)
return {p1 + p2, reclaimed, collected, more and 1 or 0, next_in, wf_written, has and 1 or 0}
