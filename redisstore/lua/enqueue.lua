-- enqueue.lua: add jobs to one queue (see enqueue.go), one variant per
-- shape of queue and jobs (the ready and kidx slots), and per kind of
-- jobs (the adds slot: plain jobs, or jobs with extras).
--- @include conf events kinds place kidx adds
--- @keys jobs
--
-- ARGV: 1 the kind of every job ("" when they differ: the script reads
-- each job's from its value), 2 "n" when every job is due now and has an
-- ID no other job of the call has (for the plain variant's fast path;
-- "N" for that path without the lean way, lean.lua),
-- then each job's arguments, as the adds slot takes them; or, for one job
-- due now, its ID and value alone (adds/plain.lua reads its kind from the
-- value), without the tail key pending in KEYS.
-- Returns one string per job: "r" (ready), "p" (pending), "d" followed by
-- the holder's ID for a duplicate ("d" alone for a skipped tick), or "u",
-- the holder's state now and its ID for a duplicate that replaced what the
-- holder waits with; or {'~', shape} when the variant does not serve the
-- queue (conf.lua), having done nothing. On adds/plain.lua's path for
-- jobs due now the strings come alone, not in a table, for a call of one
-- job, and "r" alone ("R" on the lean way) for a call that stored every
-- job (enqueue.go: setEnqueueResults); "~" when a call sent the lead
-- keys alone finds the lean mark gone, having done nothing.
--
-- Cost: per job what the adds slot says; per call TIME, the settings and
-- marks (one HMGET each), one RPUSH and/or ZADD, the wake-up only when
-- ready was empty, one XADD for the events.

read_fields()
if M.sh and M.sh ~= SHAPE and not shape_ok() then return refused() end
events_config()
local now, later = now_ms()
local out, ids, news = adds_all(now, later)
store_placed()
local common = ARGV[1]
local kinds, added, states, n = {}, {}, {}, 0
if common ~= '' then kinds = common end
for k = 1, #ids do
  local r = out[k]
  if r == 'r' or r == 'p' then
    n = n + 1
    added[n], states[n] = ids[k], r
    if common == '' then kinds[n] = kind_of_new(news[k]) end
  end
end
index_add(added, n, kinds, now)
emit_many(1, added, n, kinds, 0, states)
flush_events(now)
return out
