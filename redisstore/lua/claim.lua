-- claim.lua: move up to max jobs from ready to unack (see claim.go).
--
-- KEYS: 1 ready list, 2 jobs hash, 3 unack zset, 4 attempt info hash,
--       5 config hash, 6 token counter, 7 ready-wake list,
--       8 schedule-wake list, 9 error history hash
-- ARGV: 1 max, 2 lease ms, 3 RetryIn ms for a paused queue
-- Returns {nowMs, deadlineMs, retryInMs, firstToken, id1, value1,
--          attempt1, errors1, dueMs1, id2, ...}; job i has token
--          firstToken+i-1; dueMs is when the job fell due ('' when it went
--          straight to ready at enqueue).
--
-- Cost per call, whatever the batch: TIME, HMGET config, LPOP count,
-- HMGET values and attempts (and errors of jobs attempted before), INCRBY, ZRANGE + ZADD unack, HSET attempts,
-- LLEN (+ wake). No call per job: the claim path scales with batch size.

local ready, unack, conf = KEYS[1], KEYS[3], KEYS[5]
local max, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
local now, later = now_ms()
local c = redis.call('HMGET', conf, 'paused', 'maxrun', 'rate', 'period', 'rw', 'rn')
if c[1] == '1' then
  return {now, 0, tonumber(ARGV[3]), 0}
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
local window, used
if c[3] then
  -- Rate limit: a fixed window of period ms, counted in the config hash.
  local period = tonumber(c[4]) or 1000
  window = math.floor(now / period)
  used = 0
  if c[5] == str(window) then used = tonumber(c[6]) end
  local left = tonumber(c[3]) - used
  if left < n then
    limited = true
    n = math.max(left, 0)
    local r = (window + 1) * period - now
    if retry_in == 0 or r > retry_in then retry_in = r end
  end
end
if n == 0 then
  if redis.call('LLEN', ready) == 0 then retry_in = 0 end
  return {now, 0, retry_in, 0}
end

local ids = redis.call('LPOP', ready, n)
if not ids then return {now, 0, 0, 0} end
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
  local got = call_chunked_flat('HMGET', KEYS[9], which)
  for k = 1, #tried do errs[tried[k]] = got[k] end
end
local last = redis.call('INCRBY', KEYS[6], #ids)
local first = last - #ids + 1
local deadline = later + lease
local deadlines = str(deadline)
local nows = str(now)
local out = {now, deadline, 0, first}
local zargs, hargs = {}, {}
for i = 1, #ids do
  local id, v = ids[i], vals[i]
  if v then -- an ID without a job cannot happen; skip it if it does
    local tok = str(first + i - 1)
    local a, _, _, due = parse_att(atts[i])
    a = a + 1
    zargs[#zargs + 1] = deadlines
    zargs[#zargs + 1] = id .. '|' .. tok
    hargs[#hargs + 1] = id
    hargs[#hargs + 1] = make_att(a, nows, tok, due)
    out[#out + 1] = id
    out[#out + 1] = v
    out[#out + 1] = a
    out[#out + 1] = errs[i] or ''
    out[#out + 1] = due
  else
    out[#out + 1] = id
    out[#out + 1] = ''
    out[#out + 1] = 0
    out[#out + 1] = ''
    out[#out + 1] = ''
  end
end
if #zargs > 0 then
  -- A lease deadline earlier than every other is a new due time for the
  -- scheduler (reclaim): wake it.
  local e = earliest(unack)
  if not e or deadline < e then signal(KEYS[8]) end
  call_chunked('ZADD', unack, zargs, 2)
  call_chunked('HSET', KEYS[4], hargs, 2)
end
if window then
  redis.call('HSET', conf, 'rw', str(window), 'rn', str(used + #zargs / 2)) -- zargs: score, member per job
end
-- Jobs left behind (LPOP filled the batch): make sure the next idle worker
-- wakes for them.
if #ids == n and redis.call('LLEN', ready) > 0 then
  signal(KEYS[7])
  if limited then out[3] = retry_in end
end
return out
