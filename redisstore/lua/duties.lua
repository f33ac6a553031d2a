-- duties.lua: the scheduler's duties on one queue, for maintain.lua:
-- promote due jobs, reclaim expired leases, collect what outlived its
-- retention. Each moves at most batch jobs with a constant number of
-- calls (range, remove, add).
--- @include att errors events kinds outcome unique waiters throughput ready kidx wfends forget
--- @keys jobs pending retry unack garbage done done_exp results extras cancelled progress

-- to_ready moves ids, taken out of their state, to ready with their
-- attempt info (atts) recording when each fell due (dues, for QueueStats
-- latency) and a promoted event (when the step at now writes events): to
-- the back, or, with front, to the head of their lists in the order given.
local function to_ready(ids, atts, dues, front, now)
  local n = #ids
  local evatts, h = {}, {}
  for i = 1, n do
    local a, c = parse_att(atts[i])
    h[#h + 1] = ids[i]
    h[#h + 1] = make_att(a, c, '', dues[i])
    evatts[i] = a
  end
  if ev_writes(now) then emit_many(2, ids, n, kinds_of(ids), evatts, '') end
  call_chunked('HSET', K.att, h, 2)
  if front then ids = reversed(ids) end
  if ready_push(ids, front) then wake_ready() end
end

-- promote moves due jobs of zset z to the back of ready, oldest due first,
-- records when each fell due (for QueueStats latency; in whole ms, see
-- score_ms), and returns how many and whether more are due. Due times
-- count to the µs (place.lua), so does the comparison.
local function promote(z, now, batch)
  local got = rcall('ZRANGEBYSCORE', z, '-inf', now_score(), 'WITHSCORES', 'LIMIT', 0, batch)
  local n = #got / 2
  if n == 0 then return 0, false end
  local ids, dues = {}, {}
  for i = 1, n do ids[i], dues[i] = got[2 * i - 1], score_ms(got[2 * i]) end
  call_chunked('ZREM', z, ids, 1)
  to_ready(ids, call_chunked_flat('HMGET', K.att, ids), dues, false, now)
  return n, n == batch
end

-- reclaim_one ends the expired lease of job id (stored value v, attempt
-- info att): to garbage when its attempts are used up (or it was
-- cancelled), else for another attempt at once; with the error recorded.
-- It returns whether it died.
local function reclaim_one(id, v, att, cancelled, waited, wfm, now, text)
  local a = parse_att(att)
  local max_retries = tonumber(string.match(v, '^%d+,(%d+)')) or 0
  append_error(id, now, a, error_rest(a, text))
  local o = 2 -- retry, at once
  if a >= max_retries + 1 then o = 3 end
  if cancelled then o = on_cancelled(o) end
  if events_on() then emit(OUTCOME_EVENT[o], id, kind_of(v), a, text) end
  if o == 2 then return false end
  if waited and waited[id] then publish_end(id, 'garbage', a, kind_of(v), '', text, o == 6, now) end
  if wfm and wfm[id] then wf_note(id, o == 6 and 'c' or 'f', '') end
  return true
end

-- reclaim ends the leases that expired by now, and returns how many and
-- whether more expired. A job with attempts left goes back to the head of
-- its list (its group's, its priority level's), where it was before its
-- claim, the jobs of one pass in the order of their deadlines, then IDs
-- (store.Store's Maintain: the place of a redelivered job).
local function reclaim(now, batch, text)
  local got = rcall('ZRANGEBYSCORE', K.unack, '-inf', now, 'LIMIT', 0, batch)
  if #got == 0 then return 0, false end
  call_chunked('ZREM', K.unack, got, 1)
  local ids = {}
  for i = 1, #got do ids[i] = id_of(got[i]) end
  local vals = call_chunked_flat('HMGET', K.jobs, ids)
  local atts = call_chunked_flat('HMGET', K.att, ids)
  local canc = {}
  if rcall('SCARD', K.cancelled) > 0 then canc = call_chunked_flat('SMISMEMBER', K.cancelled, ids) end
  local waited, wfm = waited_among(ids), wf_members(ids)
  local dead, dz, datt, back, batts, dues, left, n = {}, {}, {}, {}, {}, {}, {}, 0
  for i = 1, #ids do
    if vals[i] then
      n = n + 1
      left[#left + 1] = ids[i]
      if reclaim_one(ids[i], vals[i], atts[i], canc[i] == 1, waited, wfm, now, text) then
        dead[#dead + 1] = ids[i]
        dz[#dz + 1], dz[#dz + 2] = now, ids[i]
        -- No claim's token with it in garbage: that claim's end, sent
        -- late, must find its lease lost (ends.lua: lost).
        local a, c, _, r = parse_att(atts[i])
        datt[#datt + 1], datt[#datt + 2] = ids[i], make_att(a, c, '', r)
      else
        local k = #back + 1
        back[k], batts[k], dues[k] = ids[i], atts[i], str(now)
      end
    end
  end
  if #dead > 0 then
    release_unique(dead)
    call_chunked('ZADD', K.garbage, dz, 2)
    call_chunked('HSET', K.att, datt, 2)
  end
  if ready_ended(left) then wake_ready() end
  if #back > 0 then to_ready(back, batts, dues, true, now) end
  count_throughput('f', now, n)
  return n, #got == batch
end

-- collect deletes done jobs past their retention and garbage past its
-- age (max_age ms, 0 for none) and count (max_count, 0 for none) limits.
-- It returns how many, whether more are due, and whether garbage is over
-- its count still.
local function collect(now, batch, max_age, max_count)
  local n, more, room = 0, false, batch
  local function drop(z, old)
    if #old == 0 then return end
    if z == K.done_exp then call_chunked('ZREM', K.done, old, 1) end
    call_chunked('ZREM', z, old, 1)
    purge(old)
    n = n + #old
    if z ~= K.done_exp then room = room - #old end
  end
  -- Done jobs and garbage each get a batch.
  local old = rcall('ZRANGEBYSCORE', K.done_exp, '-inf', now, 'LIMIT', 0, batch)
  if #old == batch then more = true end
  drop(K.done_exp, old)
  if max_age > 0 then
    old = rcall('ZRANGEBYSCORE', K.garbage, '-inf', now - max_age, 'LIMIT', 0, room)
    if #old == room then more = true end
    drop(K.garbage, old)
  end
  local over = false
  if max_count > 0 then
    local excess = rcall('ZCARD', K.garbage) - max_count
    if excess > 0 and room > 0 then
      old = rcall('ZRANGE', K.garbage, 0, math.min(excess, room) - 1)
      excess = excess - #old
      drop(K.garbage, old)
    end
    if excess > 0 then more, over = true, true end
  end
  return n, more, over
end

-- next_due returns when the queue has something to do next (nil: never),
-- now when over is set.
local function next_due(now, max_age, over)
  local next_at
  local function consider(t)
    if t and (not next_at or t < next_at) then next_at = t end
  end
  consider(earliest(K.pending))
  consider(earliest(K.retry))
  consider(earliest(K.unack))
  consider(earliest(K.done_exp))
  if max_age > 0 then
    local g = earliest(K.garbage)
    if g then consider(g + max_age) end
  end
  if over then consider(now) end
  return next_at
end
