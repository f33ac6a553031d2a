#!lua flags=allow-oom
-- finish.lua: end claimed attempts of one queue (see finish.go).
--
-- KEYS: 1 unack zset, 2 jobs hash, 3 attempt info hash, 4 error history
--       hash, 5 results hash, 6 unique locks hash, 7 extras hash,
--       8 cancelled set, 9 ready list, 10 pending zset, 11 retry zset,
--       12 garbage zset, 13 done zset, 14 done expiry zset, 15 config hash,
--       16 throughput hash, 17 event stream, 18 waited set, 19 progress
--       hash, 20-23 workflow task set, records, delivery zset and token
--       counter (lib_wf.lua)
-- ARGV: 1 the number A of plain acks (no retention or result in the
--       request), then A quads id, member ("id|token"), kind, attempt,
--       then groups of seven per other request: outcome (1 ack, 2 retry,
--       3 garbage, 4 snooze, 5 release, 6 cancel), id, member, then for ack
--       the retention ms (0 = none asked) and the result, for the others
--       the delay ms and the error record (see append_error, "" for none;
--       for a snooze, the ms to hold the queue's claims, "" for none),
--       then kind and attempt. Kind and attempt are the claim's, for the
--       events; an empty kind makes the script read both.
-- Returns one integer per request, plain acks first, in ARGV order:
-- 0 done, 1 lease lost, 2 no such job; then how many workflow task ends
-- it recorded (lib_wf.lua), and each one's job ID and record, for the
-- caller to deliver.
--
-- An ack's retention is the request's (the worker sends the job's own),
-- else the queue's; with none the job is deleted. The fencing check is the unack
-- member "id|token" itself: ZMSCORE finds the current claims of the whole
-- batch in one call. A batch of plain acks costs TIME, HMGET config,
-- ZMSCORE, SCARD, HLEN extras, ZREM, HDEL values, HDEL attempts, HLEN
-- errors and the throughput HINCRBY: a constant number of calls, each with
-- the whole batch as arguments.

local unack, jobs, att, errs = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, later = now_ms()
local nows = ms_str(now)

-- Requests as parallel arrays (no table per request): ids, members, and
-- from the plain acks on, where (in ARGV) the outcome and its two values
-- are.
local plain = tonumber(ARGV[1])
local ids, members, at, kinds, attempts = {}, {}, {}, {}, {}
local n = 0
local i = 2
for _ = 1, plain do
  n = n + 1
  ids[n], members[n], kinds[n], attempts[n] = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  i = i + 4
end
while i <= #ARGV do
  n = n + 1
  ids[n], members[n], kinds[n], attempts[n] = ARGV[i + 1], ARGV[i + 2], ARGV[i + 5], ARGV[i + 6]
  at[n] = i
  i = i + 7
end

local conf = redis.call('HMGET', KEYS[15], 'ret', 'maxrun', 'ev', 'evw', 'pm', 'gm', 'gmax', 'ki')
local queue_ret = tonumber(conf[1]) or 0
events_config(conf[3], conf[4])
local ev = events_on()
-- kind_att returns the kind and attempt of request r for its event: the
-- request's, else read.
local function kind_att(r)
  if kinds[r] ~= '' then return kinds[r], tonumber(attempts[r]) or 0 end
  return kind_of(redis.call('HGET', jobs, ids[r])), (parse_att(redis.call('HGET', att, ids[r])))
end
local held = call_chunked_flat('ZMSCORE', unack, members)
-- A cancelled job is not retried, snoozed or released: it dies cancelled.
local any_cancelled = redis.call('SCARD', KEYS[8]) > 0
local cancelled = {}
if any_cancelled then cancelled = call_chunked_flat('SMISMEMBER', KEYS[8], ids) end
-- Extras: own retention and unique lock field, by ID.
local exmap
if redis.call('HLEN', KEYS[7]) > 0 then
  exmap = {}
  local vals = call_chunked_flat('HMGET', KEYS[7], ids)
  for r = 1, n do exmap[ids[r]] = vals[r] end
end

local out = {}
local gone, gids = {}, {}        -- members leaving unack, and their IDs
local del_ids = {}               -- acked and deleted
local done_ids, done_fin, done_exp = {}, {}, {}
local min_exp
local dead_ids, dead_z = {}, {}  -- to garbage
local results = {}               -- result field-value pairs
local acks, fails = 0, 0
-- Waiters and progress reports are rare: one EXISTS of both keys tells
-- whether either needs a look.
local side = redis.call('EXISTS', KEYS[18], KEYS[19], KEYS[20]) > 0
local waited = side and waited_among(KEYS[18], ids) or nil
local wfm = side and wf_members(KEYS[20], ids) or nil
local function note(id, outcome, result)
  if wfm and wfm[id] then wf_note(id, outcome, result) end
end
local wake_r, wake_s = false, false
local hold_until -- the latest end of a hold a snooze asked for
local first_retry, first_pend -- earliest scores before this call

-- ack keeps an acked job in done for ret ms (the request's retention, 0
-- for none) or the queue's, with its result, or deletes it.
local function ack(id, ret, result)
  acks = acks + 1
  if ret == 0 then ret = queue_ret end
  if ret <= 0 then
    del_ids[#del_ids + 1] = id
    return
  end
  local exp = later + ret
  done_ids[#done_ids + 1] = id
  done_fin[#done_fin + 1] = nows
  done_fin[#done_fin + 1] = id
  done_exp[#done_exp + 1] = str(exp)
  done_exp[#done_exp + 1] = id
  if not min_exp or exp < min_exp then min_exp = exp end
  if result ~= '' then
    results[#results + 1] = id
    results[#results + 1] = result
  end
end

-- Plain acks first, in a tight loop: the common case. (Without a
-- retention an ack only deletes: written out, since a Lua call costs about
-- a thousand instructions here.)
local ng, nd = 0, 0
local bare = false -- a plain ack without the claim's kind
for r = 1, plain do
  local id = ids[r]
  if not held[r] then
    if redis.call('HEXISTS', jobs, id) == 1 then out[r] = 1 else out[r] = 2 end
  else
    out[r] = 0
    ng = ng + 1
    gone[ng], gids[ng] = members[r], id
    if queue_ret <= 0 then
      nd = nd + 1
      del_ids[nd] = id
    else
      ack(id, 0, '')
    end
    if wfm then note(id, 's', '') end
    if kinds[r] == '' then bare = true end
    if waited and waited[id] then
      local k, a = kind_att(r)
      publish_end(KEYS[18], id, 'done', a, k, '', '', false, now)
    end
  end
end
acks = acks + nd
if ev and ng > 0 then
  if ng == plain and not bare then
    -- Every plain ack went through with its kind: the request columns
    -- are the events' (the usual call).
    emit_many(5, ids, plain, kinds, attempts, '')
  else
    local evids, evkinds, evatts, n = {}, {}, {}, 0
    for r = 1, plain do
      if out[r] == 0 then
        n = n + 1
        evids[n] = ids[r]
        evkinds[n], evatts[n] = kind_att(r)
      end
    end
    emit_many(5, evids, n, evkinds, evatts, '')
  end
end

for r = plain + 1, n do
  local o, id, x, y = 1, ids[r], '0', ''
  local a = at[r]
  if a then o, x, y = tonumber(ARGV[a]), ARGV[a + 3], ARGV[a + 4] end
  if o == 4 and y ~= '' then
    -- A snooze's hold: the queue claims nothing until it ends, even when
    -- the job itself was cancelled meanwhile.
    if held[r] then
      local h = after(now, later, tonumber(y))
      -- A grouped job holds its group alone.
      local g = conf[6] and ext().group_of(redis.call('HGET', jobs, id))
      if g then
        ext().group_hold(KEYS[9], g, h)
      elseif not hold_until or h > hold_until then
        hold_until = h
      end
    end
    y = ''
  end
  if not held[r] then
    if redis.call('HEXISTS', jobs, id) == 1 then out[r] = 1 else out[r] = 2 end
  else
    out[r] = 0
    gone[#gone + 1] = members[r]
    gids[#gids + 1] = id
    if cancelled[r] == 1 then o = on_cancelled(o) end
    if o == 1 then
      if ev or (waited and waited[id]) then
        local k, a = kind_att(r)
        if ev then emit(5, id, k, a, '') end
        if waited and waited[id] then publish_end(KEYS[18], id, 'done', a, k, y, '', false, now) end
      end
      ack(id, tonumber(x), y)
      if wfm then note(id, 's', y) end
    else
      local a, c = parse_att(redis.call('HGET', att, id))
      if o == 2 or o == 3 or o == 6 then
        if y == '' and o == 6 then y = error_rest(a, 'hopper: job cancelled') end
        if y ~= '' then append_error(errs, id, now, a, y) end
        fails = fails + 1
        if ev then emit(OUTCOME_EVENT[o], id, (kind_att(r)), a, error_text(y)) end
      elseif ev then
        emit(OUTCOME_EVENT[o], id, (kind_att(r)), math.max(a - 1, 0), '')
      end
      if o == 2 then
        -- Retry: to the retry set, due after the delay.
        local due = after(now, later, tonumber(x))
        if first_retry == nil then first_retry = earliest(KEYS[11]) or false end
        if not first_retry or due < first_retry then wake_s = true; first_retry = due end
        redis.call('ZADD', KEYS[11], str(due), id)
      elseif o == 3 or o == 6 then
        if waited and waited[id] then
          publish_end(KEYS[18], id, 'garbage', a, (kind_att(r)), '', error_text(y), o == 6, now)
        end
        if wfm then note(id, (o == 6 or cancelled[r] == 1) and 'c' or 'f', '') end
        dead_ids[#dead_ids + 1] = id
        dead_z[#dead_z + 1] = nows
        dead_z[#dead_z + 1] = id
        if o == 6 and cancelled[r] ~= 1 then
          redis.call('SADD', KEYS[8], id)
          any_cancelled = true
        end
      elseif o == 4 then
        -- Snooze: back to pending, the attempt not counted.
        local due = after(now, later, tonumber(x))
        redis.call('HSET', att, id, make_att(math.max(a - 1, 0), c, '', ''))
        if first_pend == nil then first_pend = earliest(KEYS[10]) or false end
        if not first_pend or due < first_pend then wake_s = true; first_pend = due end
        redis.call('ZADD', KEYS[10], str(due), id)
      elseif o == 5 then
        -- Release: back to the head of ready, the attempt not counted.
        redis.call('HSET', att, id, make_att(math.max(a - 1, 0), c, '', nows))
        push_ready(KEYS[9], jobs, conf[5], conf[6], {id}, true)
        wake_r = true
      end
    end
  end
end

-- In a queue with groups, the groups of the jobs that left unack have
-- room again (read before acked jobs are deleted).
-- (Whether groups are capped is read here rather than through ext(), whose
-- build would cost every finish of a grouped queue, capped or not.)
if conf[6] and #gids > 0
  and ((tonumber(conf[7]) or 0) > 0 or redis.call('HLEN', string.sub(KEYS[9], 1, -2) .. 'gl') > 0)
  and ext().groups_ended(KEYS[9], call_chunked_flat('HMGET', jobs, gids), conf[7]) then
  wake_r = true
end
if #gone > 0 then
  call_chunked('ZREM', unack, gone, 1)
  -- The last lease is gone: the scheduler, which may be set to look at
  -- the queue when a lease it saw expires, learns it need not (else a
  -- burst over many queues would cost a pass per queue one lease later).
  -- Not while jobs wait in ready: claims come next, and the scheduler's
  -- visit is not wasted (a drain would cost a pass each time the leases
  -- run out between two claims).
  if not earliest(unack) and redis.call('LLEN', KEYS[9]) == 0 then wake_s = true end
end
if #del_ids > 0 then
  if exmap then
    release_unique(KEYS[6], KEYS[7], del_ids, exmap)
    call_chunked('HDEL', KEYS[7], del_ids, 1)
  end
  if conf[8] then kidx().drop(jobs, del_ids) end
  call_chunked('HDEL', jobs, del_ids, 1)
  call_chunked('HDEL', att, del_ids, 1)
  if redis.call('HLEN', errs) > 0 then call_chunked('HDEL', errs, del_ids, 1) end
  if any_cancelled then call_chunked('SREM', KEYS[8], del_ids, 1) end
  if side and redis.call('HLEN', KEYS[19]) > 0 then call_chunked('HDEL', KEYS[19], del_ids, 1) end
end
if #done_ids > 0 then
  if exmap then release_unique(KEYS[6], KEYS[7], done_ids, exmap) end
  if any_cancelled then call_chunked('SREM', KEYS[8], done_ids, 1) end
  local e = earliest(KEYS[14])
  call_chunked('ZADD', KEYS[13], done_fin, 2)
  call_chunked('ZADD', KEYS[14], done_exp, 2)
  if not e or min_exp < e then wake_s = true end
  if #results > 0 then call_chunked('HSET', KEYS[5], results, 2) end
end
if #dead_ids > 0 then
  if exmap then release_unique(KEYS[6], KEYS[7], dead_ids, exmap) end
  if redis.call('ZCARD', KEYS[12]) == 0 then wake_s = true end
  call_chunked('ZADD', KEYS[12], dead_z, 2)
end
if hold_until and hold_until > (tonumber(redis.call('HGET', KEYS[15], 'hold')) or 0) then
  redis.call('HSET', KEYS[15], 'hold', str(hold_until))
end
count_throughput(KEYS[16], 'd', now, acks)
count_throughput(KEYS[16], 'f', now, fails)
-- A job leaving unack frees a slot of a MaxRunning cap: wake a waiter if
-- jobs are waiting for it.
if not wake_r and #gone > 0 and conf[2] and ready_len(KEYS[9], conf[5]) > 0 then
  wake_r = true
end
if wake_r then wake_ready() end
if wake_s then wake_sched() end
flush_events(KEYS[17], now)
-- Then the workflow task ends recorded: their count, then job ID and
-- record pairs, which the caller delivers at once.
out[n + 1] = wf_written
if wf_written > 0 and wf_apply_now then
  -- On one server: applied here, nothing left to deliver.
  wf_apply_now(now, later)
  out[n + 1] = 0
elseif wf_written > 0 then
  for _, x in ipairs(wf_flush(KEYS[21], KEYS[22], KEYS[23], now)) do out[#out + 1] = x end
end
return out
