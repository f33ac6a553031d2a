-- events.lua: the queue's event stream (see events.go).
--- @keys events
--- @conf ev
--- @marks evw evr evs evh evg
--
-- A script collects the events of its transitions with emit and writes them
-- with flush_events as one entry of the stream {p:q}:ev, in the same atomic
-- step: an event is never written for a transition that did not happen,
-- nor missed for one that did. The entry's ID is "1-*": entries are
-- numbered 1-0, 1-1, ... with no gap, so a reader tells from the numbers
-- alone whether entries were trimmed away between two reads. The mark evg
-- is the stream's generation (entry_id): the server's time in µs when the
-- stream got its first entry (or, for a stream older than generations,
-- its first entry since), which every position read carries, so that a
-- reader whose position names another generation learns that the stream
-- started over (its key deleted or evicted, lost with the server's data)
-- even once the new stream has grown past its number. MAXLEN ~ the
-- queue's EventsMaxLen (setting ev, negative: no events) bounds it.
--
-- An entry is columns, so that a step of many jobs costs a few string
-- joins rather than an encoding per event (and the usual step, one type,
-- one kind, one attempt, stores each once): "t" the script's time in ms,
-- "i" the job IDs joined by "\n" (IDs are printable ASCII without spaces),
-- then for the type code, the kind, the attempt and the detail (the state
-- for enqueued, the worker for started, the error for retried, dead and
-- cancelled, the report for progress), either one value for every event
-- ("y", "k", "a", "d"; no "d" when every detail is empty) or one per event:
-- "Y" and "A" joined by " ", "K" joined by "\n" (kinds have no control
-- characters), "D" a msgpack array. Scripts hand over whole columns at once
-- (emit_many), so the usual step costs a few table stores per job.
--
-- A reader blocked on the queue sets the mark evw to the time its wait
-- ends (arm_events in events.go); while it is in the future, a script
-- that writes an entry wakes them (wake_events, base.lua).
--
-- Entries are written only while someone reads them: every reader keeps
-- the mark evr, the time until which the queue's events are wanted, a
-- minute ahead of its last read (events.go). A step after evr writes no
-- entry, and the first such step sets the mark evs (events skipped). The
-- reader that wants the events again marks a hole in the numbering (evh,
-- events_arm.lua), which the next entry skips, so that a reader whose
-- position is before it is told it lost events (events_read.lua): a queue
-- that nobody reads costs one comparison per step, and no stream.

local SEGS, NSEG, EVN
local ev_maxlen, ev_maxlen_s, ev_watch, ev_rec
local function reset_events()
  SEGS, NSEG, EVN = nil, 0, 0
  ev_maxlen, ev_maxlen_s, ev_watch, ev_rec = nil, nil, nil, nil
end

-- ev_wanted reports whether the mark evr (a time in ms, a string, or
-- nil) is at or after nows: whether a reader wants the queue's events.
local function ev_wanted(evr, nows)
  return evr and (#evr > #nows or (#evr == #nows and evr >= nows)) or false
end

-- ev_unread reports, from the marks ev, evr and evs as HMGET reads them
-- (false when missing), whether a step at nows writes no event and no
-- mark of events: they are off ('-'), or nobody reads them and a step
-- marked the first entry skipped (evs), as the lean mark has it
-- (lean.lua) for a plain queue.
local function ev_unread(ev, evr, evs, nows)
  if ev and string.byte(ev, 1) == 45 then return true end
  if ev and not string.match(ev, '^%d+$') then return false end
  return evs and not ev_wanted(evr, nows) or false
end

-- ev_recording reports whether this step writes its entry: whether a
-- reader wants the queue's events at nows, the step's time in ms as a
-- string (compared as strings: a number costs a tonumber). A step that
-- does not, and is the first since the last entry, sets the mark evs.
local function ev_recording(nows)
  if ev_rec == nil then
    ev_rec = ev_wanted(M.evr, nows)
    if not ev_rec and not M.evs then
      rcall('HSET', K.marks, 'evs', '1')
      M.evs = '1'
      -- The stream goes ten minutes later, unless a reader comes back
      -- (events_arm.lua keeps it then): time for one that was away to read
      -- what it had not read yet. (A number, not a local: a finish's chunk
      -- holds at most 200.) Through pcall: an ACL user without +pexpire
      -- keeps the stream, and the step goes on.
      redis.pcall('PEXPIRE', K.events, 600000)
    end
  end
  return ev_rec
end

-- entry_id returns the ID of the entry to write: "1-*", the next number,
-- or, when a hole is marked (evh: the number after it), that number, and
-- clears the mark. A stream without a generation gets one (evg, from TIME:
-- the step's clock may have come from the lean mark), and a new stream's
-- first entry is "1-0" by name, which ev_xadd tells from a stream
-- deleted under a generation.
local function entry_id()
  local h = M.evh
  if not M.evg then
    local t = rcall('TIME')
    M.evg = t[1] .. string.sub('00000' .. t[2], -6)
    rcall('HSET', K.marks, 'evg', M.evg)
    if not h and rcall('EXISTS', K.events) == 0 then return '1-0' end
  end
  if not h then return '1-*' end
  M.evh = nil
  rcall('HDEL', K.marks, 'evh')
  local newest = rcall('XREVRANGE', K.events, '+', '-', 'COUNT', 1)[1]
  if newest and (tonumber(string.match(newest[1], '^1%-(%d+)$')) or 0) >= tonumber(h) then return '1-*' end
  return '1-' .. h
end

-- ev_xadd writes an entry with ID id (entry_id's, or "1-*" under the
-- generation the marks hold, as adds/plain.lua's first_adds writes the
-- entry of jobs enqueued ready) and the fields that follow, capped at
-- maxlen_s. "1-0" for "1-*" is the first entry of a stream whose key was
-- deleted without the marks (evicted, deleted by hand): the stream gets a
-- new generation, so that readers of the old one learn that it started
-- over. (One string compare per entry, while someone reads.) Through
-- pcall, as the wake-ups are published: an entry the server refuses (an
-- ACL user without +xadd) is not written, and the step, whose writes came
-- before, goes on; it failed after them, its job stored or claimed while
-- the caller was told it was not.
local function ev_xadd(maxlen_s, id, ...)
  if redis.pcall('XADD', K.events, 'MAXLEN', '~', maxlen_s, id, ...) == '1-0' and id == '1-*' then
    local t = rcall('TIME')
    M.evg = t[1] .. string.sub('00000' .. t[2], -6)
    rcall('HSET', K.marks, 'evg', M.evg)
  end
end

-- ev_publish tells the readers blocked on the queue that it has news.
local function ev_publish(nows)
  if ev_watch and ev_watch > tonumber(nows) then wake_events() end
end

-- events_config reads the events settings from C.ev and M.evw (after
-- read_fields); with events off, emit does nothing.
local function events_config()
  local ev, evw = C.ev, M.evw
  ev_watch = evw and tonumber(evw)
  if not ev then
    -- The default: no field to read.
    ev_maxlen, ev_maxlen_s = EV_DEFAULT_MAXLEN, EV_DEFAULT_MAXLEN_S
    return
  end
  ev_maxlen = tonumber(ev) or EV_DEFAULT_MAXLEN
  -- The cap as XADD gets it, formatted once at most.
  if string.match(ev, '^%d+$') then
    ev_maxlen_s = ev
  elseif ev_maxlen == EV_DEFAULT_MAXLEN then
    ev_maxlen_s = EV_DEFAULT_MAXLEN_S
  else
    ev_maxlen_s = str(ev_maxlen)
  end
end

-- events_on reports whether the queue keeps events (after events_config).
local function events_on()
  return ev_maxlen >= 0
end

-- ev_writes reports whether this step writes events at now (ms): they
-- are on, and someone reads them. A step that would read columns for
-- its events (kinds out of values) asks first. With peek, it asks
-- without marking that the step skips its entry (ev_recording): for a
-- step that may have no event to write.
local function ev_writes(now, peek)
  if peek then return events_on() and ev_wanted(M.evr, ms_str(now)) end
  return events_on() and ev_recording(ms_str(now))
end

-- emit_many records n events of one type for the step's entry: the jobs
-- ids[1..n], and their kinds, attempts and details, each either a table
-- of n values or one value for all. The tables are kept, not copied: the
-- hot paths (claim, plain enqueue and ack, promote) hand over the tables
-- they build anyway.
local function emit_many(code, ids, n, kinds, atts, details)
  if ev_maxlen < 0 or n == 0 or ev_rec == false then return end
  if not SEGS then SEGS = {} end
  NSEG = NSEG + 1
  SEGS[NSEG] = {code, ids, n, kinds, atts, details}
  EVN = EVN + n
end

-- emit records one event.
local function emit(code, id, kind, att, detail)
  emit_many(code, {id}, 1, kind, att, detail)
end

-- seg_uniform returns the value column k (1 type code, 4 kind, 5 attempt,
-- 6 detail) has for every event, or nil when the events differ.
local function seg_uniform(k)
  local first
  for s = 1, NSEG do
    local seg = SEGS[s]
    local c = seg[k]
    if type(c) == 'table' then
      for i = 1, seg[3] do
        local v = c[i]
        if first == nil then first = v elseif v ~= first then return nil end
      end
    elseif first == nil then
      first = c
    elseif c ~= first then
      return nil
    end
  end
  return first
end

-- seg_list returns column k (2 for the IDs) with one value per event.
local function seg_list(k)
  local c = SEGS[1][k]
  if NSEG == 1 and type(c) == 'table' and #c == EVN then return c end
  local out, m = {}, 0
  for s = 1, NSEG do
    local seg = SEGS[s]
    local c = seg[k]
    for i = 1, seg[3] do
      m = m + 1
      if type(c) == 'table' then out[m] = c[i] else out[m] = c end
    end
  end
  return out
end

-- column returns the field and value of column k of the step's entry:
-- field one with the value every event has (nil for an empty detail), or
-- field many with one value per event, joined by sep or, without sep, as
-- a msgpack array.
local function column(k, one, many, sep)
  local v = seg_uniform(k)
  if v ~= nil then
    if v == '' and one == 'd' then return nil end
    if type(v) == 'number' then v = SMALL[v] or str(v) end
    return one, v
  end
  if sep then return many, table.concat(seg_list(k), sep, 1, EVN) end
  return many, cmsgpack.pack(seg_list(k))
end

-- write_entry writes one entry: time nows (a string of ms), ids (joined),
-- and the columns' fields and values (d absent when every detail is
-- empty). (One XADD with its arguments in place: building them in a table
-- costs several times more.)
local function write_entry(nows, ids, y, yv, k, kv, a, av, d, dv)
  if d then
    ev_xadd(ev_maxlen_s, entry_id(), 't', nows, 'i', ids, y, yv, k, kv, a, av, d, dv)
  else
    ev_xadd(ev_maxlen_s, entry_id(), 't', nows, 'i', ids, y, yv, k, kv, a, av)
  end
  ev_publish(nows)
end

-- flush_events writes the step's entry, if it has events, to the stream.
local function flush_events(now)
  if EVN == 0 then return end
  local nows = ms_str(now)
  if not ev_recording(nows) then return end
  local ids = seg_list(2)
  ids = EVN == 1 and ids[1] or table.concat(ids, '\n', 1, EVN)
  local y, yv = column(1, 'y', 'Y', ' ')
  local k, kv = column(4, 'k', 'K', '\n')
  local a, av = column(5, 'a', 'A', ' ')
  local d, dv = column(6, 'd', 'D', nil)
  write_entry(nows, ids, y, yv, k, kv, a, av, d, dv)
end
