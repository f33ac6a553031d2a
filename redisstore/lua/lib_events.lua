-- lib_events.lua: the queue's event stream and job waiters (see
-- events.go and wait_job.go).
--
-- A script collects the events of its transitions with emit and writes
-- them with flush_events as one entry of the stream {p:q}:ev, in the same
-- atomic step: an event is never written for a transition that did not
-- happen, nor missed for one that did. The entry's ID is "1-*": entries
-- are numbered 1-0, 1-1, ... with no gap, so a reader tells from the
-- numbers alone whether entries were trimmed away between two reads. Its
-- fields: "t" the script's time in ms, "e" a msgpack array of five values
-- per event: type code (events.go), job ID, kind, attempt, detail (the
-- state for enqueued, the worker for started, the error for retried, dead
-- and cancelled, the report for progress, else ""). MAXLEN ~ the queue's
-- EventsMaxLen (config field "ev", negative: no events) bounds it.
--
-- A reader blocked on the queue sets config field "evw" to the time its
-- wait ends (arm_events in events.go); while it is in the future, a script
-- that writes an entry PUBLISHes the queue on "<prefix>:ev".

local EV_DEFAULT_MAXLEN = 1000
local EV, EVN = {}, 0
local ev_maxlen, ev_watch

-- events_config reads the events settings from the values of config
-- fields "ev" and "evw"; with events off, emit does nothing.
local function events_config(ev, evw)
  ev_maxlen = tonumber(ev) or EV_DEFAULT_MAXLEN
  ev_watch = tonumber(evw)
end

-- emit records one event for the step's entry.
local function emit(code, id, kind, att, detail)
  if ev_maxlen < 0 then return end
  EV[EVN + 1], EV[EVN + 2], EV[EVN + 3], EV[EVN + 4], EV[EVN + 5] = code, id, kind, att, detail
  EVN = EVN + 5
end

-- events_on reports whether the queue keeps events (after events_config).
local function events_on()
  return ev_maxlen >= 0
end

-- flush_events writes the step's entry, if it has events, to stream key.
local function flush_events(key, now)
  if EVN == 0 then return end
  redis.call('XADD', key, 'MAXLEN', '~', ev_maxlen, '1-*', 't', str(now), 'e', cmsgpack.pack(EV))
  if ev_watch and ev_watch > now then
    redis.call('PUBLISH', PREFIX .. ':ev', QUEUE)
  end
end

-- kind_at returns the kind in a job's envelope whose msgpack array header
-- is byte p of v ('' when v is not what hopper writes).
local function kind_at(v, p)
  local b = string.byte(v, p + 1)
  if not b then return '' end
  if b >= 0xa0 and b <= 0xbf then return string.sub(v, p + 2, p + 1 + b - 0xa0) end
  if b == 0xd9 then
    local n = string.byte(v, p + 2) or 0
    return string.sub(v, p + 3, p + 2 + n)
  end
  return ''
end

-- kind_of returns the kind of a job from its stored value
-- "<enqueuedMs>,<maxRetries>,<msgpack>".
local function kind_of(v)
  if not v then return '' end
  local c1 = string.find(v, ',', 1, true)
  local c2 = c1 and string.find(v, ',', c1 + 1, true)
  if not c2 then return '' end
  return kind_at(v, c2 + 1)
end

-- kind_of_new returns the kind of a job from the value an enqueue sends,
-- "<maxRetries>,<msgpack>".
local function kind_of_new(v)
  local c1 = string.find(v, ',', 1, true)
  if not c1 then return '' end
  return kind_at(v, c1 + 1)
end

-- kinds_of returns the kinds of jobs ids, read from the jobs hash.
local function kinds_of(jobs, ids)
  local vals = call_chunked_flat('HMGET', jobs, ids)
  local out = {}
  for i = 1, #ids do out[i] = kind_of(vals[i]) end
  return out
end

-- error_text returns the message of an error record as the client encodes
-- it ([attempt, error, stack] without the array header).
local function error_text(rest)
  if rest == '' then return '' end
  local _, msg = cmsgpack.unpack(rest)
  if type(msg) ~= 'string' then return '' end
  return msg
end

-- waited_among returns the IDs among ids that a WatchJob call waits for
-- (set key wj), as a set, or nil when there are none: one EXISTS when
-- nobody waits in the queue.
local function waited_among(wj, ids)
  if #ids == 0 or redis.call('EXISTS', wj) == 0 then return nil end
  local m = call_chunked_flat('SMISMEMBER', wj, ids)
  local out
  for i = 1, #ids do
    if m[i] == 1 then
      out = out or {}
      out[ids[i]] = true
    end
  end
  return out
end

-- publish_end tells the WatchJob callers of job id how it ended, on
-- "<prefix>:done" (wait_job.go): the msgpack array [queue, id, state
-- ('done', 'garbage' or 'deleted'), result, attempt, kind, error,
-- cancelled (0/1), time ms].
local function publish_end(wj, id, state, attempt, kind, result, err, cancelled, now)
  redis.call('SREM', wj, id)
  local c = 0
  if cancelled then c = 1 end
  redis.call('PUBLISH', PREFIX .. ':done',
    cmsgpack.pack({QUEUE, id, state, result or '', attempt or 0, kind or '', err or '', c, now}))
end

-- OUTCOME_EVENT maps a finish outcome code (finish.go) to its event code.
local OUTCOME_EVENT = {5, 6, 7, 9, 10, 8}
