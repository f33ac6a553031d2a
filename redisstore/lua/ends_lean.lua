-- ends_lean.lua: the lean way of finish.lua, for the call every worker
-- makes most: plain acks (no retention or result asked) of jobs of a lean
-- queue (lean.lua: no shape, no events to write) that nobody waits for,
-- tracks, cancelled or made unique. It does what ends.lua does for such
-- acks, in its order, with the same helpers, and without the set-up the
-- other outcomes need (the requests' tables, the events, the settings
-- and marks it does not read), which was most of a lone ack's Lua
-- (bench/instr/luaprof.sh, docs/performance.md, "A queue that sees one
-- job at a time"). The acks of a queue of priority levels alone, and of
-- one of groups alone without caps or rate limits per group, take it too
-- (the ready slots' ready_lean), with the clock from TIME.
--- @include ends lean events

-- LEAN_DEL is the list of the IDs a call deletes, kept (base.lua: kept_trim).
local LEAN_DEL = {}

-- first_ends_lean serves the call when it can (lua.go: firsts), or returns
-- nil, having written nothing, for the rest of finish.lua. What it checks
-- first: the variant tracks nobody's tasks; the call holds plain acks
-- alone; none of the keys of the rarer ends exists (cancelled jobs,
-- unique jobs' extras, waiters, progress reports); the marks say no
-- retention; and either the variant is the plain one, the lean mark is
-- set (its PTTL also gives the clock; pcall, as an ACL user may not run
-- PTTL) and the marks say no shape, or the acks came as pairs, the
-- variant's ready slot serves the queue's shape lean (ready_lean) and no
-- events are to be written (ev_unread). The acks come as quads or, from
-- a store that saw the lean way taken, as pairs (finish.lua).
local function first_ends_lean()
  local a, w = tonumber(ARGV[1]), 4
  if a and a < 0 then a, w = -a, 2 end -- pairs: id and member alone
  if ENDS_TRACKED or not a or a < 1 or #ARGV ~= 1 + w * a then return nil end
  local now, sa
  if SHAPE == '' then
    local t = redis.pcall('PTTL', K.lean)
    if type(t) ~= 'number' then return nil end
    local nows = lean_at(t)
    if not nows then return nil end
    if rcall('EXISTS', K.cancelled, K.extras, K.waited, K.progress) > 0 then return nil end
    local mk = rcall('HMGET', K.marks, 'sh', 'ret', 'sa')
    if (mk[1] and mk[1] ~= '') or (tonumber(mk[2]) or 0) > 0 then return nil end
    reset_base()
    now, sa = tonumber(nows), mk[3]
  else
    -- Only acks sent as pairs, by a store that an earlier call told the
    -- lean way serves the queue (ends_fast.lua): a queue the shaped lean
    -- way does not serve (caps, a retention, a reader) pays nothing here.
    if w == 4 then return nil end
    local f, o = ready_lean({K.cancelled, K.extras, K.waited, K.progress}, 'ret', 'sa', 'ev', 'evr', 'evs')
    if not f or (tonumber(f[o + 1]) or 0) > 0 then return nil end
    reset_base()
    now = now_ms()
    if not ev_unread(f[o + 3], f[o + 4], f[o + 5], ms_str(now)) then return nil end
    sa = f[o + 2]
  end
  local del = LEAN_DEL
  local out, nd = ends_unack(a, w, del)
  -- In the place of tracked_tail's count (no records here): "L", which
  -- tells the store a lean way serves the queue (claim.go asks the claims
  -- of such a queue to take their lean way). A call whose requests were all
  -- acked, the usual one, answers "L" alone (Redis turns a table into its
  -- reply element by element, some thousand instructions each).
  if out then out[a + 1] = 'L' else out = 'L' end
  if nd == 0 then return out end
  kept_trim(del, nd)
  local idle = ends_idle(now, sa)
  ends_drop(del)
  count_throughput('d', now, nd)
  if idle then wake_sched() end
  return out
end
