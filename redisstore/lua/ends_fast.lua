-- ends_fast.lua: finish.lua's way, after the call's set-up, for a batch of
-- plain acks alone that the lean way (ends_lean.lua) left to it: the
-- acks of workflow tasks' jobs, whose ends are tracked (wf/local.lua,
-- wf/record.lua), those of a queue with a shape, and those of a queue
-- without the lean mark. It does
-- what ends_parse, ends_read, ends_plain and ends_write do for such a
-- batch in one loop over the requests, without their tables (bench/instr
-- luaprof.sh: a finish of 32 fan-out tasks took 142 Lua VM steps a job
-- the long way; docs/performance.md, "A tracked ack's fast way"). It
-- serves the call only while it writes no event, keeps no retention,
-- and none of the rarer ends' keys exists (cancelled jobs, unique jobs'
-- extras, waiters, progress reports), in every variant: a queue's shape
-- (groups, priorities, limits, the kind index) asks at the end of a
-- batch what ends_write asks of it (ready_ended, index_drop,
-- limits_freed). A plain ack writes nothing else of a shape (rate logs
-- and holds are the claims' and snoozes'): a shape whose acks must
-- write more must be asked here too.
--- @include ends lean events

local FAST_DEL = {} -- the IDs a call deletes, kept (base.lua: kept_trim)

-- ends_fast serves the call, whose clock is now (later: now_ms's second
-- value), or returns nil, having written nothing, for the rest of
-- finish.lua. Its reply is the long way's (ends_reply: 0
-- alone when every request was done and nothing is left to deliver or
-- release), or, for such a call, the lean way's "L" when the lean way
-- would serve the queue's next calls (with the statuses before it when a
-- request was not done): the lean mark is set, or the variant's ready
-- slot serves the queue's shape lean (ready_lean_ok) and no events are
-- to be written.
local function ends_fast(now, later)
  local a, w = tonumber(ARGV[1]), 4
  if a and a < 0 then a, w = -a, 2 end -- pairs: the kinds and attempts are for events
  if not a or a < 1 or #ARGV ~= 1 + w * a then return nil end
  if (tonumber(C.ret) or 0) > 0 then return nil end
  -- A reader wants the step's events: the long way writes them.
  if ev_writes(now, true) then return nil end
  if rcall('EXISTS', K.cancelled, K.extras, K.waited, K.progress) > 0 then return nil end
  -- out holds a status a request only when one was not done (0): else
  -- the tail alone (tracked_tail's), which the reply of a call whose
  -- requests were all done is made of.
  local del = FAST_DEL
  local out, nd = ends_unack(a, w, del)
  local lost_any = out ~= nil
  out = out or {}
  if nd > 0 then
    -- What the long way's events of these acks would do, nobody reading
    -- them: mark that a step skipped its entry (events.lua: evs), which
    -- a batch of lost claims alone, with no event, leaves unmarked.
    ev_writes(now)
    kept_trim(del, nd)
    local flags = tracked_among(del)
    if flags then
      local tracked, nt = {}, 0
      for k = 1, nd do
        if flags[k] == 1 then
          nt = nt + 1
          tracked[nt] = del[k]
        end
      end
      if nt > 0 then track_oks(tracked, nt) end
    end
    -- ends_write's order: the groups that may have room again and the
    -- scheduler's check before the deletes, the kind index's with them
    -- (ends_delete), a freed MaxRunning cap after.
    local woke = ready_ended(del)
    local idle = ends_idle(now, M.sa)
    index_drop(del)
    ends_drop(del)
    count_throughput('d', now, nd)
    if woke or (limits_freed() and ready_any()) then wake_ready() end
    if idle then wake_sched() end
  end
  tracked_tail(out, now, later)
  flush_events(now)
  local bare = #out == (lost_any and a + 1 or 1) and out[#out] == 0 -- nothing to deliver or release
  if bare then
    local t = redis.pcall('PTTL', K.lean)
    local lean = type(t) == 'number' and lean_at(t)
    if not lean and SHAPE ~= '' then
      -- A variant with a shape: the lean way its ready slot allows, by
      -- the settings and marks this call read. (A plain queue served by
      -- a larger variant a process keeps, shape.go, has its lean mark.)
      lean = ev_unread(C.ev, M.evr, M.evs, ms_str(now)) and ready_lean_ok()
    end
    if lean then
      -- The lean way's reply, which tells the store to send pairs and
      -- claim the lean way.
      if not lost_any then return 'L' end
      out[a + 1] = 'L'
      return out
    end
    if not lost_any then return 0 end
    return out
  end
  if lost_any then return out end
  -- Every request done, and a tail: the statuses go first.
  local full = repeated(a, 0)
  for k = 1, #out do full[a + k] = out[k] end
  return full
end
