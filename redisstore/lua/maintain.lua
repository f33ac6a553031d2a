#!lua flags=allow-oom
-- maintain.lua: the scheduler's duties on one queue (see maintain.go).
--
-- KEYS: 1 pending zset, 2 retry zset, 3 ready list, 4 unack zset, 5 jobs
--       hash, 6 attempt info hash, 7 error history hash, 8 garbage zset,
--       9 done zset, 10 done expiry zset, 11 results hash, 12 unique locks
--       hash, 13 extras hash, 14 cancelled set, 15 throughput hash, 16 config
--       hash, 17 event stream, 18 waited set, 19 progress hash, 20-23
--       workflow task set, records, delivery zset and token counter
--       (lib_wf.lua)
-- ARGV: 1 batch, 2 garbage max age ms (0 = none), 3 garbage max count
--       (0 = none), 4 error text of an expired lease
-- Returns {promoted, reclaimed, collected, more (0/1), nextInMs (-1 when
--          nothing is scheduled), workflow task ends recorded, backlog
--          (0/1: jobs are ready)}.
--
-- Each duty moves at most batch jobs with a constant number of calls
-- (range, remove, add), so one call stays short however large the backlog.

local pending, retry, ready, unack = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local jobs, att, errs, garbage = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local done, done_exp = KEYS[9], KEYS[10]
local batch = tonumber(ARGV[1])
local max_age, max_count = tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
local more = 0
local cf = redis.call('HMGET', KEYS[16], 'ev', 'evw', 'pm', 'gm', 'gmax', 'ki', 'kib', 'sw', 'grate', 'gperiod', 'gwc')
events_config(cf[1], cf[2])
local ev = events_on()

-- promote moves due jobs of zset z to the back of ready, oldest due first,
-- and records when each fell due (for QueueStats latency).
local function promote(z)
  local got = redis.call('ZRANGEBYSCORE', z, '-inf', now, 'WITHSCORES', 'LIMIT', 0, batch)
  local n = #got / 2
  if n == 0 then return 0 end
  if n == batch then more = 1 end
  local ids = {}
  for i = 1, n do ids[i] = got[2 * i - 1] end
  local atts = call_chunked_flat('HMGET', att, ids)
  local evatts = {}
  local h = {}
  for i = 1, n do
    local a, c = parse_att(atts[i])
    h[#h + 1] = ids[i]
    h[#h + 1] = make_att(a, c, '', got[2 * i])
    evatts[i] = a
  end
  if ev then emit_many(2, ids, n, kinds_of(jobs, ids), evatts, '') end
  call_chunked('ZREM', z, ids, 1)
  call_chunked('HSET', att, h, 2)
  if push_ready(ready, jobs, cf[3], cf[4], ids) then wake_ready() end
  return n
end

-- purge deletes jobs for good (their unique keys were released when they
-- finished).
local function purge(ids)
  if cf[6] then kidx().drop(jobs, ids) end
  call_chunked('HDEL', jobs, ids, 1)
  call_chunked('HDEL', att, ids, 1)
  call_chunked('HDEL', errs, ids, 1)
  call_chunked('HDEL', KEYS[11], ids, 1)
  call_chunked('SREM', KEYS[14], ids, 1)
  call_chunked('HDEL', KEYS[13], ids, 1)
  if redis.call('HLEN', KEYS[19]) > 0 then call_chunked('HDEL', KEYS[19], ids, 1) end
end

local promoted = promote(pending) + promote(retry)

-- Reclaim expired leases: to garbage when attempts are used up (or the job
-- was cancelled), to retry (due now) otherwise, with an error recorded.
local reclaimed = 0
local got = redis.call('ZRANGEBYSCORE', unack, '-inf', now, 'LIMIT', 0, batch)
if #got > 0 then
  if #got == batch then more = 1 end
  call_chunked('ZREM', unack, got, 1)
  local ids = {}
  for i = 1, #got do ids[i] = id_of(got[i]) end
  local vals = call_chunked_flat('HMGET', jobs, ids)
  local atts = call_chunked_flat('HMGET', att, ids)
  local canc = {}
  if redis.call('SCARD', KEYS[14]) > 0 then canc = call_chunked_flat('SMISMEMBER', KEYS[14], ids) end
  local dead, dz, rz, left = {}, {}, {}, {}
  local waited = waited_among(KEYS[18], ids)
  local wfm = wf_members(KEYS[20], ids)
  for i = 1, #ids do
    local v = vals[i]
    if v then
      reclaimed = reclaimed + 1
      left[#left + 1] = v
      local a = parse_att(atts[i])
      local max_retries = tonumber(string.match(v, '^%d+,(%d+)')) or 0
      append_error(errs, ids[i], now, a, error_rest(a, ARGV[4]))
      local o = 2 -- retry, due now
      if a >= max_retries + 1 then o = 3 end
      if canc[i] == 1 then o = on_cancelled(o) end
      if ev then emit(OUTCOME_EVENT[o], ids[i], kind_of(v), a, ARGV[4]) end
      if o ~= 2 then
        if waited and waited[ids[i]] then
          publish_end(KEYS[18], ids[i], 'garbage', a, kind_of(v), '', ARGV[4], o == 6, now)
        end
        if wfm and wfm[ids[i]] then
          wf_note(ids[i], o == 6 and 'c' or 'f', '')
        end
        dead[#dead + 1] = ids[i]
        dz[#dz + 1] = now
        dz[#dz + 1] = ids[i]
      else
        rz[#rz + 1] = now
        rz[#rz + 1] = ids[i]
      end
    end
  end
  if #dead > 0 then
    release_unique(KEYS[12], KEYS[13], dead)
    call_chunked('ZADD', garbage, dz, 2)
  end
  if #rz > 0 then call_chunked('ZADD', retry, rz, 2) end
  if cf[4] and ext().groups_capped(ready, cf[5]) and ext().groups_ended(ready, left, cf[5]) then wake_ready() end
  count_throughput(KEYS[15], 'f', now, reclaimed)
end

-- Collect done jobs past their retention and garbage past its age and
-- count limits.
local collected = 0
local old = redis.call('ZRANGEBYSCORE', done_exp, '-inf', now, 'LIMIT', 0, batch)
if #old > 0 then
  if #old == batch then more = 1 end
  call_chunked('ZREM', done_exp, old, 1)
  call_chunked('ZREM', done, old, 1)
  purge(old)
  collected = collected + #old
end
local room = batch
if max_age > 0 then
  old = redis.call('ZRANGEBYSCORE', garbage, '-inf', now - max_age, 'LIMIT', 0, room)
  if #old > 0 then
    if #old == room then more = 1 end
    call_chunked('ZREM', garbage, old, 1)
    purge(old)
    collected = collected + #old
    room = room - #old
  end
end
local over_count = false
if max_count > 0 then
  local excess = redis.call('ZCARD', garbage) - max_count
  if excess > 0 and room > 0 then
    old = redis.call('ZRANGE', garbage, 0, math.min(excess, room) - 1)
    call_chunked('ZREM', garbage, old, 1)
    purge(old)
    collected = collected + #old
    excess = excess - #old
  end
  if excess > 0 then
    more = 1
    over_count = true
  end
end

flush_events(KEYS[17], now)

-- Index the jobs that were there when the kind index was turned on, two
-- batches a call (lib_kidx.lua), until done.
if cf[7] and not kidx().build(jobs, KEYS[16], 2 * batch) then more = 1 end

-- When is there something to do next?
local next_at
local function consider(t)
  if t and (not next_at or t < next_at) then next_at = t end
end
consider(earliest(pending))
consider(earliest(retry))
consider(earliest(unack))
consider(earliest(done_exp))
if max_age > 0 then
  local g = earliest(garbage)
  if g then consider(g + max_age) end
end
if over_count then consider(now) end
-- Once a minute, the queue's depth and latency for its history; and
-- whether jobs are ready, for the scheduler to come back next minute.
local backlog = 0
local has = sample_depth(KEYS[15], now, function() return ready_depth(ready, cf[3], cf[4], jobs, att) end)
if has == nil then
  has = ready_len(ready, cf[3]) > 0 or (cf[4] ~= false and redis.call('LLEN', ext().gkey(ready, 'gq')) > 0)
elseif cf[4] then
  -- With the sample, once a minute: the rate logs of groups gone quiet.
  ext().groups_rate_sweep(ready, KEYS[16], cf[11], now, cf[9] and (tonumber(cf[10]) or 1000) or 0)
end
if has then backlog = 1 end
local next_in = -1
if next_at then next_in = math.max(next_at - now, 0) end
-- The time the schedulers come back to this queue, for claims: a lease
-- that ends no earlier needs no wake-up (claim.lua). None when idle.
local sw = next_at
if more == 1 then sw = now end
if sw then
  if tonumber(cf[8]) ~= sw then redis.call('HSET', KEYS[16], 'sw', sw) end
elseif cf[8] then
  redis.call('HDEL', KEYS[16], 'sw')
end
wf_flush(KEYS[21], KEYS[22], KEYS[23], now)
return {promoted, reclaimed, collected, more, next_in, wf_written, backlog}
