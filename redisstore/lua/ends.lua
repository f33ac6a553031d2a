-- ends.lua: how finish.lua ends claimed attempts: the requests read, each
-- outcome collected, then written with one call per destination.
--- @include att errors events kinds outcome unique waiters throughput ready limits kidx wf
--- @keys jobs unack pending retry garbage done done_exp results cancelled progress
--- @conf ret
--- @marks hold sa

-- SCHED_QUIET is how long, in ms, a queue's last lease going leaves the
-- scheduler unwoken after it was woken so (the mark sa).
local SCHED_QUIET = 1000

-- E collects what the requests do, for ends_write.
local E
local function reset_ends()
  E = {gids = {}, del = {}, done_ids = {}, done_fin = {}, done_exp = {}, dead_ids = {}, dead_z = {},
    results = {}, acks = 0, fails = 0, wake_r = false, wake_s = false}
end

-- The parallel arrays of ends_parse are lists kept from call to call
-- (base.lua's kept_trim), as is ends_read's list of the claims that held
-- (read up to q.n only): the fields of QK, one local for the five (a
-- script's chunk holds at most 200 locals, and finish's come close).
local QK = {ids = {}, members = {}, kinds = {}, attempts = {}, held = {}}

-- ends_parse reads the requests (see finish.lua) into parallel arrays:
-- ids, members, kinds, attempts, and from the plain acks on, where (in
-- ARGV) each request's outcome and its two values are.
local function ends_parse()
  local plain, w = tonumber(ARGV[1]), 4
  if plain < 0 then plain, w = -plain, 2 end -- pairs: kind and attempt read for events
  local all = plain + (#ARGV - 1 - w * plain) / 7
  local kept = QK
  local q = {ids = kept_trim(kept.ids, all), members = kept_trim(kept.members, all), at = {},
    kinds = kept_trim(kept.kinds, all), attempts = kept_trim(kept.attempts, all), plain = plain}
  local n, i = 0, 2
  for _ = 1, q.plain do
    n = n + 1
    q.ids[n], q.members[n] = ARGV[i], ARGV[i + 1]
    if w == 4 then
      q.kinds[n], q.attempts[n] = ARGV[i + 2], ARGV[i + 3]
    else
      q.kinds[n], q.attempts[n] = '', ''
    end
    i = i + w
  end
  while i <= #ARGV do
    n = n + 1
    q.ids[n], q.members[n], q.kinds[n], q.attempts[n] = ARGV[i + 1], ARGV[i + 2], ARGV[i + 5], ARGV[i + 6]
    q.at[n] = i
    i = i + 7
  end
  q.n = n
  return q
end

-- ends_read parses the requests (ends_parse) and returns them with what
-- they need read: which claims still hold (the
-- fencing check: a ZREM of each unack member, which also ends the
-- claims that hold; a ZMSCORE of the batch costs more, as Redis 7.0
-- formats each score it returns with snprintf, some 3,800 instructions a
-- job, and the ZREM had to follow), which jobs were
-- cancelled, their extras, their waiters and workflow tasks; the rare ones
-- behind one EXISTS or HLEN each.
local function ends_read()
  local q = ends_parse()
  local held, unack, members, call = QK.held, K.unack, q.members, rcall
  for r = 1, q.n do held[r] = call('ZREM', unack, members[r]) == 1 end
  q.held = held
  -- A cancelled job is not retried, snoozed or released: it dies cancelled.
  q.any_cancelled = rcall('SCARD', K.cancelled) > 0
  q.cancelled = q.any_cancelled and call_chunked_flat('SMISMEMBER', K.cancelled, q.ids) or {}
  q.exmap = unique_extras(q.ids)
  -- Waiters and progress reports are rare: one EXISTS of both keys.
  q.side = rcall('EXISTS', K.waited, K.progress) > 0
  q.waited = q.side and waited_among(q.ids) or nil
  q.tracked = tracked_among(q.ids)
  q.queue_ret = tonumber(C.ret) or 0
  return q
end

-- kind_att returns the kind and attempt of request r for its event: the
-- request's, else read.
local function kind_att(q, r)
  if q.kinds[r] ~= '' then return q.kinds[r], tonumber(q.attempts[r]) or 0 end
  return kind_of(rcall('HGET', K.jobs, q.ids[r])), (parse_att(rcall('HGET', K.att, q.ids[r])))
end

-- lost returns the status of a request, outcome o, whose claim (unack
-- member "id|token") no longer holds: 1 the lease was lost, 2 no such
-- job; or 0, done, when an earlier try of the same request, whose reply
-- was lost, applied it: the job is where that outcome put it, under that
-- claim (an ack's in done; a death's or a cancel's in garbage; a retry's
-- in retry, or in garbage cancelled: the cancel flag turned it into a
-- cancel, or Cancel moved it on from retry). A claim's token stays in
-- att while its end leaves the job there; what moves the job on to ready
-- clears it (to_ready, requeue, replace) or a claim replaces it, and a
-- lease that expired into garbage leaves none (duties.lua: reclaim).
-- Such a request changes nothing: the first try's result, error and
-- retention hold. A snooze or a release, which clear the token, is not
-- recognised: it reports 1.
local function lost(id, member, o)
  if rcall('HEXISTS', K.jobs, id) == 0 then return 2 end
  local there
  if o == 1 then
    there = rcall('ZSCORE', K.done, id)
  elseif o == 2 then
    there = rcall('ZSCORE', K.retry, id)
      or rcall('ZSCORE', K.garbage, id) and rcall('SISMEMBER', K.cancelled, id) == 1
  elseif o == 3 or o == 6 then
    there = rcall('ZSCORE', K.garbage, id)
  end
  if there then
    local _, _, t = parse_att(rcall('HGET', K.att, id))
    if t ~= '' and member == id .. '|' .. t then return 0 end
  end
  return 1
end

-- ends_unack ends the claims of the a plain acks of ARGV, w values each
-- from ARGV[2] (id and member first), for the lean and fast ways: a ZREM
-- of each member. It puts the IDs whose claims held in del (the first
-- nd, returned) and returns with nd the statuses: nil while every claim
-- held, else one a request, 0 done or lost's.
local function ends_unack(a, w, del)
  local unack, out, nd = K.unack, nil, 0
  for r = 1, a do
    local i = w * r - w + 2
    if rcall('ZREM', unack, ARGV[i + 1]) == 1 then
      nd = nd + 1
      del[nd] = ARGV[i]
      if out then out[r] = 0 end
    else
      out = out or repeated(r - 1, 0)
      out[r] = lost(ARGV[i], ARGV[i + 1], 1)
    end
  end
  return out, nd
end

-- ends_ack keeps an acked job in done for ret ms (the request's
-- retention, 0 for none) or the queue's, with its result, or deletes it.
local function ends_ack(q, id, ret, result, now, later)
  E.acks = E.acks + 1
  if ret == 0 then ret = q.queue_ret end
  if ret <= 0 then
    E.del[#E.del + 1] = id
    return
  end
  local exp = later + ret
  E.done_ids[#E.done_ids + 1] = id
  E.done_fin[#E.done_fin + 1], E.done_fin[#E.done_fin + 2] = ms_str(now), id
  E.done_exp[#E.done_exp + 1], E.done_exp[#E.done_exp + 2] = str(exp), id
  if not E.min_exp or exp < E.min_exp then E.min_exp = exp end
  if result ~= '' then
    E.results[#E.results + 1], E.results[#E.results + 2] = id, result
  end
end

-- ends_reply returns finish's reply: out (a status a request, then what
-- tracked_tail added), or 0 alone when every status is 0 and the tail is
-- the count 0 with nothing after it, the usual call (Redis turns a table
-- into its reply element by element, some thousand instructions each;
-- finish.go: endsAllDone).
local function ends_reply(out, n)
  if #out ~= n + 1 then return out end
  for r = 1, n + 1 do
    if out[r] ~= 0 then return out end
  end
  return 0
end

-- ends_plain ends the plain acks, in a tight loop: the common case.
-- (Without a retention an ack only deletes: written out, since a Lua call
-- costs about a thousand instructions here.)
local function ends_plain(q, out, now, later)
  local ng, nd, nt, bare = 0, 0, 0, false
  local ids, kinds, held, waited, tracked = q.ids, q.kinds, q.held, q.waited, q.tracked
  local tk = tracked and {} -- the tracked jobs' IDs, for one track_oks
  local gids, del, keep = E.gids, E.del, q.queue_ret > 0
  for r = 1, q.plain do
    local id = ids[r]
    if not held[r] then
      out[r] = lost(id, q.members[r], 1)
    else
      out[r] = 0
      ng = ng + 1
      gids[ng] = id
      if keep then
        ends_ack(q, id, 0, '', now, later)
      else
        nd = nd + 1
        del[nd] = id
      end
      if tracked and tracked[r] == 1 then
        nt = nt + 1
        tk[nt] = id
      end
      if kinds[r] == '' then bare = true end
      if waited and waited[id] then
        local k, a = kind_att(q, r)
        publish_end(id, 'done', a, k, '', '', false, now)
      end
    end
  end
  E.acks = E.acks + nd
  if nt > 0 then track_oks(tk, nt) end
  if not events_on() or ng == 0 then return end
  if ng == q.plain and not bare then
    -- Every plain ack went through with its kind: the request columns are
    -- the events' (the usual call).
    emit_many(5, ids, q.plain, q.kinds, q.attempts, '')
    return
  end
  for r = 1, q.plain do
    -- Held: an ack sent again after it applied (lost's 0) had its event.
    if held[r] then
      local k, a = kind_att(q, r)
      emit(5, ids[r], k, a, '')
    end
  end
end

-- ends_hold applies the hold a snooze of request r asks for (y: its ms):
-- a grouped job holds its group alone, another the queue's claims.
local function ends_hold(q, r, y, now, later)
  if not q.held[r] then return end
  local h = after(now, later, tonumber(y))
  if not ready_hold(q.ids[r], h) and (not E.hold_until or h > E.hold_until) then E.hold_until = h end
end

-- ends_fail ends the attempt of request r, outcome o (2 retry, 3
-- garbage, 4 snooze, 5 release, 6 cancel), x the delay and y the error
-- record.
local function ends_fail(q, r, o, x, y, now, later)
  local id = q.ids[r]
  local a, c = parse_att(rcall('HGET', K.att, id))
  if o == 2 or o == 3 or o == 6 then
    -- A job Cancel flagged, snoozed or released with no error.
    if y == '' and o == 6 then y = error_rest(a, CANCELLED_TEXT) end
    if y ~= '' then append_error(id, now, a, y) end
    E.fails = E.fails + 1
    if events_on() then emit(OUTCOME_EVENT[o], id, (kind_att(q, r)), a, error_text(y)) end
  elseif events_on() then
    emit(OUTCOME_EVENT[o], id, (kind_att(q, r)), math.max(a - 1, 0), '')
  end
  if o == 2 then
    -- Retry: to the retry set, due after the delay.
    local due = after(now, later, tonumber(x))
    if E.first_retry == nil then E.first_retry = earliest(K.retry) or false end
    if not E.first_retry or due < E.first_retry then E.wake_s, E.first_retry = true, due end
    rcall('ZADD', K.retry, str(due), id)
  elseif o == 3 or o == 6 then
    if q.waited and q.waited[id] then
      publish_end(id, 'garbage', a, (kind_att(q, r)), '', error_text(y), o == 6, now)
    end
    if q.tracked and q.tracked[r] == 1 then track_end(id, (o == 6 or q.cancelled[r] == 1) and 'c' or 'f', '') end
    E.dead_ids[#E.dead_ids + 1] = id
    E.dead_z[#E.dead_z + 1], E.dead_z[#E.dead_z + 2] = ms_str(now), id
    if o == 6 and q.cancelled[r] ~= 1 then
      rcall('SADD', K.cancelled, id)
      q.any_cancelled = true
    end
  elseif o == 4 then
    -- Snooze: back to pending, the attempt not counted.
    local due = after(now, later, tonumber(x))
    rcall('HSET', K.att, id, make_att(math.max(a - 1, 0), c, '', ''))
    if E.first_pend == nil then E.first_pend = earliest(K.pending) or false end
    if not E.first_pend or due < E.first_pend then E.wake_s, E.first_pend = true, due end
    rcall('ZADD', K.pending, str(due), id)
  elseif o == 5 then
    -- Release: back to the head of ready (ends_write), the attempt not
    -- counted.
    rcall('HSET', K.att, id, make_att(math.max(a - 1, 0), c, '', ms_str(now)))
    E.rel = E.rel or {} -- made only by a call that releases
    E.rel[#E.rel + 1] = id
    E.wake_r = true
  end
end

-- ends_one ends request r other than a plain ack.
local function ends_one(q, r, out, now, later)
  local o, id, x, y = 1, q.ids[r], '0', ''
  local a = q.at[r]
  if a then o, x, y = tonumber(ARGV[a]), ARGV[a + 3], ARGV[a + 4] end
  if o == 4 and y ~= '' then
    -- A snooze's hold holds even when the job was cancelled meanwhile.
    ends_hold(q, r, y, now, later)
    y = ''
  end
  if not q.held[r] then
    out[r] = lost(id, q.members[r], o)
    return
  end
  out[r] = 0
  E.gids[#E.gids + 1] = id
  if q.cancelled[r] == 1 then o = on_cancelled(o) end
  if o ~= 1 then return ends_fail(q, r, o, x, y, now, later) end
  local waited = q.waited and q.waited[id]
  if events_on() or waited then
    local k, att = kind_att(q, r)
    emit(5, id, k, att, '')
    if waited then publish_end(id, 'done', att, k, y, '', false, now) end
  end
  ends_ack(q, id, tonumber(x), y, now, later)
  if q.tracked and q.tracked[r] == 1 then track_end(id, 's', y) end
end

-- ends_drop deletes the jobs del (IDs, a list of at least one) that
-- ended without retention: their values, attempts and errors.
local function ends_drop(del)
  call_chunked('HDEL', K.jobs, del, 1)
  call_chunked('HDEL', K.att, del, 1)
  if rcall('HLEN', K.errs) > 0 then call_chunked('HDEL', K.errs, del, 1) end
end

-- ends_delete deletes the acked jobs kept for no retention.
local function ends_delete(q)
  local del = E.del
  if q.exmap then
    release_unique(del, q.exmap)
    unique_forget(del, q.exmap)
  end
  index_drop(del)
  ends_drop(del)
  if q.any_cancelled then call_chunked('SREM', K.cancelled, del, 1) end
  if q.side and rcall('HLEN', K.progress) > 0 then call_chunked('HDEL', K.progress, del, 1) end
end

-- ends_keep moves the acked jobs kept for a retention to done.
local function ends_keep(q)
  if q.exmap then release_unique(E.done_ids, q.exmap) end
  if q.any_cancelled then call_chunked('SREM', K.cancelled, E.done_ids, 1) end
  local e = earliest(K.done_exp)
  call_chunked('ZADD', K.done, E.done_fin, 2)
  call_chunked('ZADD', K.done_exp, E.done_exp, 2)
  if not e or E.min_exp < e then E.wake_s = true end
  if #E.results > 0 then call_chunked('HSET', K.results, E.results, 2) end
end

-- ends_idle returns whether the scheduler is to be woken after claims
-- ended at now, sa being the mark sa (when it was last woken so). The
-- last lease is gone: the scheduler, which may be set to look at the
-- queue when a lease it saw expires, learns it need not (after a burst
-- over many queues, a wave of visits at the deadlines would follow). Not
-- while jobs are ready: claims come next, and its visit is not wasted.
-- And once a second at most (the mark sa, which it sets when it says
-- yes): in a trickle unack empties after nearly every job, and each such
-- wake-up cost a visit and made the next claim cost another; the
-- scheduler left with a lease to look at comes then, finds the queue's
-- leases as they are, and goes on. The second is checked first: it
-- takes no command, and in a trickle it spares most acks the two counts
-- (ZCOUNT and LLEN, two of a lone ack's ten commands).
local function ends_idle(now, sa)
  sa = tonumber(sa)
  if sa and now - sa < SCHED_QUIET and sa <= now then return false end
  if leases_until(K.unack, '(+inf') or ready_any() then return false end
  rcall('HSET', K.marks, 'sa', str(now))
  return true
end

-- ends_write writes what the requests collected, and wakes whom it
-- concerns.
local function ends_write(q, now)
  -- The jobs released go back to the head in one push, the last first, so
  -- that a batch released in one call (a worker handing back what it had
  -- claimed) keeps its order at the head.
  if E.rel then ready_push(reversed(E.rel), true) end
  -- The groups of the jobs that left unack may have room again (read
  -- before acked jobs are deleted).
  if #E.gids > 0 and ready_ended(E.gids) then E.wake_r = true end
  -- ends_read took their claims out of unack.
  if #E.gids > 0 and ends_idle(now, M.sa) then E.wake_s = true end
  if #E.del > 0 then ends_delete(q) end
  if #E.done_ids > 0 then ends_keep(q) end
  if #E.dead_ids > 0 then
    if q.exmap then release_unique(E.dead_ids, q.exmap) end
    if rcall('ZCARD', K.garbage) == 0 then E.wake_s = true end
    call_chunked('ZADD', K.garbage, E.dead_z, 2)
  end
  if E.hold_until and E.hold_until > (tonumber(M.hold) or 0) then
    rcall('HSET', K.marks, 'hold', str(E.hold_until))
  end
  count_throughput('d', now, E.acks)
  count_throughput('f', now, E.fails)
  -- A job leaving unack frees a slot of a MaxRunning cap: wake a waiter
  -- if jobs wait for it.
  if not E.wake_r and #E.gids > 0 and limits_freed() and ready_any() then E.wake_r = true end
  if E.wake_r then wake_ready() end
  if E.wake_s then wake_sched() end
end
