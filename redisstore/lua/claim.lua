#!lua flags=allow-oom
-- claim.lua: move up to max jobs from ready to unack (see claim.go).
--
-- KEYS: 1 ready list (and its levels, lib_prio.lua), 2 jobs hash, 3 unack zset, 4 attempt info hash,
--       5 config hash, 6 token counter, 7 error history hash, 8 event
--       stream, 9 rate log (lib_rate.lua)
-- ARGV: 1 max, 2 lease ms, 3 RetryIn ms for a paused queue, 4 worker ID
-- Returns {nowMs, deadlineMs, retryInMs, token, id1, value1, attempt1,
--          errors1, dueMs1, id2, ...}; every job of the call has the token;
--          dueMs is when the job fell due ('' when it went straight to
--          ready at enqueue).
--
-- Cost per call, whatever the batch: TIME, HMGET config, LPOP count,
-- HMGET values and attempts (and errors of jobs attempted before), INCRBY, ZRANGE + ZADD unack, HSET attempts,
-- LLEN (+ wake); with priority levels, an LPOP and an LLEN per level
-- (lib_prio.lua); with a rate limit, LINDEX (and an LPOP per expired
-- entry), RPUSH and HSET. No call per job: the claim path scales with
-- batch size.

local ready, unack, conf = KEYS[1], KEYS[3], KEYS[5]
local LEFT_WAKE_MS = 5
local max, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
local now, later = now_ms()
local c = redis.call('HMGET', conf, 'paused', 'maxrun', 'rate', 'period', 'rs', 'hold', 'ev', 'evw', 'lw', 'pm', 'gm', 'gmax', 'grate', 'gperiod', 'sw')
if c[1] == '1' then
  return {now, 0, tonumber(ARGV[3]), 0}
end
local hold = tonumber(c[6])
if hold and hold > now then
  return {now, 0, hold - now, 0}
end

local n = max
local retry_in = 0
local limited = false
if c[2] then
  -- Global concurrency cap: jobs in unack count against it.
  local room = tonumber(c[2]) - redis.call('ZCOUNT', unack, '-inf', '(inf')
  if room < n then
    limited = true
    n = math.max(room, 0)
    local e = earliest(unack)
    retry_in = tonumber(ARGV[3])
    if e then retry_in = math.min(retry_in, math.max(e - now, 1)) end
  end
end
local rated, used
if c[3] then
  -- Rate limit: at most c[3] claims in any window of period ms.
  local period = tonumber(c[4]) or 1000
  local free
  rated = true
  used, free = rate_trim(KEYS[9], conf, c[5], now, period)
  local left = tonumber(c[3]) - used
  if left < n then
    limited = true
    n = math.max(left, 0)
    local r = period -- a limit below the claim with nothing counted yet
    if free then r = math.max(free - now, 1) end
    if retry_in == 0 or r > retry_in then retry_in = r end
  end
end
local pm = c[10]
if n == 0 then
  if ready_len(ready, pm) == 0 and not (c[11] and redis.call('LLEN', ext().gkey(ready, 'gq')) > 0) then retry_in = 0 end
  return {now, 0, retry_in, 0}
end

local grouped = c[11]
local ids, group_retry, rotating
if grouped then
  ids, group_retry, rotating = ext().take_grouped(ready, pm, n, c[12], now, c[13], c[14])
  if #ids == 0 then return {now, 0, group_retry, 0} end
else
  ids = pop_ready(ready, pm, n)
  if not ids then return {now, 0, 0, 0} end
end
local vals = call_chunked_flat('HMGET', KEYS[2], ids)
local atts = call_chunked_flat('HMGET', KEYS[4], ids)
-- Only a job attempted before (it has attempt info) can have errors.
local errs, tried = {}, {}
for i = 1, #ids do
  if atts[i] then tried[#tried + 1] = i end
end
if #tried > 0 then
  local which = {}
  for k = 1, #tried do which[k] = ids[tried[k]] end
  local got = call_chunked_flat('HMGET', KEYS[7], which)
  for k = 1, #tried do errs[tried[k]] = got[k] end
end
-- One token per claim call: each call takes a new value of the counter,
-- and a job is claimed at most once per call, so "id|token" is unique to
-- this claim of this job, which is all fencing needs.
local tok = str(redis.call('INCR', KEYS[6]))
local deadline = later + lease
local deadlines = str(deadline)
local nows = ms_str(now)
-- Attempt info of a job never claimed nor promoted before: one string for
-- the whole batch.
local fresh = '1,' .. nows .. ',' .. tok .. ','
local out = {now, deadline, 0, tonumber(tok)}
events_config(c[7], c[8])
local ev = events_on()
local evkinds, evatts, nev, missing = {}, {}, 0, false
local o = 4
local zargs, hargs = {}, {}
local z, h = 0, 0
for i = 1, #ids do
  local id, v = ids[i], vals[i]
  if v then -- an ID without a job cannot happen; skip it if it does
    local a, due = 1, ''
    if atts[i] then
      local prev, _c, _t, d = parse_att(atts[i])
      a, due = prev + 1, d
    end
    zargs[z + 1] = deadlines
    zargs[z + 2] = id .. '|' .. tok
    z = z + 2
    hargs[h + 1] = id
    if a == 1 and due == '' then
      hargs[h + 2] = fresh
    else
      hargs[h + 2] = make_att(a, nows, tok, due)
    end
    h = h + 2
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = id, v, a, errs[i] or '', due
    if ev then
      nev = nev + 1
      evkinds[nev], evatts[nev] = kind_of(v), a
    end
  else
    missing = true
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = id, '', 0, '', ''
  end
  o = o + 5
end
if z > 0 then
  -- A lease deadline earlier than every other is a new due time for the
  -- scheduler (reclaim): wake it, unless a scheduler already comes back
  -- no later than the deadline ('sw', written by maintain.lua) and has
  -- not let that time pass by more than 10 s (a scheduler gone).
  local sw = tonumber(c[15])
  if not sw or deadline < sw or sw < now - 10000 then
    local e = earliest(unack)
    if not e or deadline < e then wake_sched() end
  end
  call_chunked('ZADD', unack, zargs, 2)
  call_chunked('HSET', KEYS[4], hargs, 2)
end
if rated then
  rate_note(KEYS[9], conf, used, now, z / 2) -- zargs: score, member per job
end
if missing then
  -- An ID without a job (which cannot happen) has no event.
  local evids = {}
  for i = 1, #ids do
    if vals[i] then evids[#evids + 1] = ids[i] end
  end
  emit_many(3, evids, nev, evkinds, evatts, ARGV[4])
else
  emit_many(3, ids, nev, evkinds, evatts, ARGV[4])
end
flush_events(KEYS[8], now)
-- Jobs left behind (LPOP filled the batch): make sure idle workers wake
-- for them; at most once per LEFT_WAKE_MS per queue (config field "lw"):
-- a worker that claimed a full batch claims again by itself, the message
-- is for the idle ones, and a busy queue's next claim wakes them soon
-- enough, without a message to every worker for every claim.
if #ids == n and (grouped and rotating or not grouped and ready_len(ready, pm) > 0) then
  if now - (tonumber(c[9]) or 0) >= LEFT_WAKE_MS then
    redis.call('HSET', conf, 'lw', nows)
    wake_ready()
  end
  if limited then out[3] = retry_in end
end
-- Held groups come back with no signal: their holds' end is the RetryIn.
if group_retry and group_retry > 0 and (out[3] == 0 or group_retry < out[3]) then out[3] = group_retry end
return out
