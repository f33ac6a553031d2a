-- base.lua: what every script holds (lua.go puts it first). No key of
-- its own: everything else declares the keys it touches.

-- All times come from the server's TIME, read by now_str or now_ms, never
-- from the client. Both keep now as a string for ms_str, made from TIME's
-- reply with string operations: in this Lua, formatting a number
-- (snprintf) or reading one (tonumber) costs about two thousand
-- instructions each. PAD[n] pads a microsecond count of n digits to six.
local NOW, NOW_S, NOW_T, NOW_US
local PAD = {'00000', '0000', '000', '00', '0', ''}

-- now_str returns the server's time in Unix milliseconds, rounded down, as
-- a string (what a script that compares no time needs), and TIME's
-- microseconds padded to six digits.
local function now_str()
  local t = rcall('TIME')
  NOW_T, NOW_US = t, nil
  local u = t[2]
  local p = PAD[#u] .. u
  NOW_S = t[1] .. string.sub(p, 1, 3)
  return NOW_S, p
end

-- now_ms returns the server's time in Unix milliseconds twice: rounded down
-- (now: what timestamps record and what due times are compared with) and
-- rounded up (later: what due times and deadlines are counted from, so that
-- nothing falls due or expires before the time asked for).
local function now_ms()
  local s, p = now_str()
  NOW = tonumber(s)
  if string.sub(p, 4) == '000' then return NOW, NOW end
  return NOW, NOW + 1
end

-- now_us returns the time now_str or now_ms read last in Unix µs (exact
-- in a double), read only by those that need it.
local function now_us()
  if not NOW_US then NOW_US = tonumber(NOW_T[1]) * 1000000 + tonumber(NOW_T[2]) end
  return NOW_US
end

-- now_score returns the time now_str or now_ms read last as the score of
-- a due time (us_score): what pending and retry jobs' due times are
-- compared with, to the microsecond.
local function now_score()
  local u = NOW_T[2]
  return NOW_S .. '.' .. string.sub(PAD[#u] .. u, 4)
end

-- us_score returns Unix µs us as the score of a due time in pending (and
-- retry): ms, with the µs past them as three decimals when there are
-- any. A double holds such a score to well under a microsecond.
local function us_score(us)
  local ms = math.floor(us / 1000)
  local r = us - ms * 1000
  if r == 0 then return string.format('%d', ms) end
  return string.format('%d.%03d', ms, r)
end

-- score_ms returns a due time's score (us_score) in whole ms, rounded
-- down as every recorded time is: the time a promotion records as when
-- the job fell due, which a claim after it, recorded the same way, never
-- precedes.
local function score_ms(s)
  return string.match(s, '^%d+')
end

-- after returns the time ms milliseconds after now: now itself for ms <= 0
-- (due at once), later + ms otherwise.
local function after(now, later, ms)
  if ms <= 0 then return now end
  return later + ms
end

-- str formats an integral number without exponent.
local function str(n)
  return string.format('%d', n)
end

-- ms_str is str for a time in ms, free for the now of now_ms.
local function ms_str(ms)
  if ms == NOW then return NOW_S end
  return string.format('%d', ms)
end

-- SMALL holds the strings of small numbers (type codes, attempts, the
-- steps of a workflow's counters, the counts of a claim's pops):
-- redis.call would format a number with snprintf, a few thousand
-- instructions each.
local SMALL = {[0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10',
  '11', '12', '13', '14', '15', '16', '17', '18', '19', '20', '21', '22', '23',
  '24', '25', '26', '27', '28', '29', '30', '31', '32', '33', '34', '35', '36',
  '37', '38', '39', '40', '41', '42', '43', '44', '45', '46', '47', '48', '49',
  '50', '51', '52', '53', '54', '55', '56', '57', '58', '59', '60', '61', '62',
  '63', '64',
  [-1] = '-1', [-2] = '-2', [-3] = '-3', [-4] = '-4'}
for k = 5, 64 do SMALL[-k] = '-' .. SMALL[k] end

-- CHUNK bounds the arguments passed to one redis.call through unpack (Lua's
-- C stack holds about 8000).
local CHUNK = 4000

-- A list a script fills anew at every call, with about as many elements
-- each time, is kept from one call to the next instead of made by {}: a
-- new table is rehashed each time its length passes a power of two (Lua
-- 5.1 counts and moves what it holds each time, some 900 instructions),
-- a kept one has room already. kept_trim(t, n) clears what list t holds
-- past n and returns t: called before or after the caller writes t[1] to
-- t[n], it leaves #t == n. It needs no count of what the last call wrote
-- (a call that failed half-way wrote a prefix, which # finds). A list
-- read only by index up to a count the caller knows needs no trim.
local function kept_trim(t, n)
  for k = #t, n + 1, -1 do t[k] = nil end
  return t
end

-- Redis keeps a hash of up to 512 fields (the default) with values of up
-- to 64 bytes as a listpack, which it scans for each field read or
-- written. Fine for a few fields; the hashes a script writes in bulk (the
-- jobs of a batch, a workflow's tasks) are read field by field afterwards,
-- where a listpack of 64 fields or more already costs 2-3 times a hash
-- table (a 32-field HMGET: 7.8-11 µs against 3.3), and writing them is
-- quadratic (1,000 fields into a new hash: 750 µs against 115). So an HSET
-- of more than PAD_FIELDS fields carries, in its first command, the field
-- LP_PAD with a value too long for a listpack: Redis converts the hash
-- before it writes any field (it checks the values' lengths first), and
-- the pad is deleted at once. No job ID or task name has a NUL byte.
local PAD_FIELDS = 128
local LP_PAD = '\0pad'
local LP_PAD_VALUE = 'a value longer than a listpack holds (hash-max-listpack-value, 64 bytes by default): base.lua'

-- call_chunked runs cmd key args... in slices of at most CHUNK arguments;
-- step keeps pairs together (2 for ZADD score member, HSET field value). It
-- returns the last reply, and nothing at all for no arguments. An HSET of
-- more than PAD_FIELDS fields goes into a hash table (LP_PAD).
local function call_chunked(cmd, key, args, step)
  local n = #args
  -- The common call: one slice, no pad (CHUNK is far above 2 * PAD_FIELDS).
  if n <= 2 * PAD_FIELDS then
    if n > 0 then return rcall(cmd, key, unpack(args)) end
    return
  end
  local i = 1
  local r
  local pad = cmd == 'HSET' and n > 2 * PAD_FIELDS
  while i <= n do
    local j = math.min(n, i + CHUNK - 1)
    if step > 1 then j = j - ((j - i + 1) % step) end
    if pad then
      r = rcall(cmd, key, LP_PAD, LP_PAD_VALUE, unpack(args, i, j))
      rcall('HDEL', key, LP_PAD)
      pad = false
    else
      r = rcall(cmd, key, unpack(args, i, j))
    end
    i = j + 1
  end
  return r
end

-- reversed returns a copy of list, last first: a front push (LPUSH, the
-- ready slots' front) puts its last item first, so a caller that wants a
-- list at the head in its order pushes it reversed.
local function reversed(list)
  local out, n = {}, #list
  for i = 1, n do out[i] = list[n + 1 - i] end
  return out
end

-- repeated returns a list of n times v: the results, before the first
-- that differs, of a call whose reply says them all with one value
-- (adds/plain.lua: store_many; ends_lean.lua).
local function repeated(n, v)
  local out = {}
  for i = 1, n do out[i] = v end
  return out
end

-- call_chunked_flat is call_chunked for commands that return one reply per
-- argument (HMGET, ZMSCORE, SMISMEMBER): it returns the replies
-- concatenated, an empty table for no arguments.
local function call_chunked_flat(cmd, key, args)
  local n = #args
  if n == 0 then return {} end
  if n <= CHUNK then return rcall(cmd, key, unpack(args)) end
  local out, m = {}, 0
  local i = 1
  while i <= n do
    local j = math.min(n, i + CHUNK - 1)
    local part = rcall(cmd, key, unpack(args, i, j))
    for k = 1, #part do m = m + 1; out[m] = part[k] end
    i = j + 1
  end
  return out
end

-- members_among returns the IDs among ids that are members of set key, as
-- a set, or nil when none is: one EXISTS when the set is empty.
local function members_among(key, ids)
  if #ids == 0 or rcall('EXISTS', key) == 0 then return nil end
  local m = call_chunked_flat('SMISMEMBER', key, ids)
  local out
  for i = 1, #ids do
    if m[i] == 1 then
      out = out or {}
      out[ids[i]] = true
    end
  end
  return out
end

-- The queue a script works on, read from its first key's hash tag
-- "{prefix:queue}" (KEYS come in keys.go's order, a queue's first; prefixes
-- and queue names hold no ':' or '}').
local PREFIX, QUEUE

-- reset_base starts a call. A module that keeps state for the length of
-- one call defines reset_<module> to set it up: every call runs them
-- first, because a script run as a function (functions.go) keeps its
-- top-level variables from one call to the next.
-- The first key PREFIX and QUEUE were last read from: a call on the
-- same queue as the last (Lua's strings are interned, so the test is one
-- comparison) keeps them, which saves two finds, two subs and their
-- strings a call.
local BASE_KEY

local function reset_base()
  local k = KEYS[1] or ''
  if k ~= BASE_KEY then
    BASE_KEY = k
    -- Plain finds: a pattern with captures costs several times more.
    local c, e = string.find(k, ':', 2, true), string.find(k, '}', 2, true)
    if c and e and c < e and string.byte(k, 1) == 123 then -- '{'
      PREFIX, QUEUE = string.sub(k, 2, c - 1), string.sub(k, c + 1, e - 1)
    else
      PREFIX, QUEUE = nil, nil
    end
  end
  NOW, NOW_S = nil, nil
end

-- The wake functions publish the queue's name on its channel of a kind
-- (ready, sched, ev) for the waiters of notify.go. On a Redis Cluster the
-- loader sets SHARD_PUB (notify_sharded.go): the message goes with
-- SPUBLISH on the queue's shard channel "<prefix>:{<prefix>:<queue>}:<kind>",
-- which hashes to the slot of the script's keys (its tag is theirs) and reaches the subscribers on
-- that slot's master only, never the cluster bus. Elsewhere, or where the
-- server refuses SPUBLISH, it goes on the classic channel "<prefix>:<kind>",
-- which a Cluster broadcasts to every node. (Each is written out: a call
-- of a shared function costs about a thousand instructions.) A message
-- is a wake-up, not data: it goes through pcall, so that a server that
-- refuses it (an ACL user without the channel) never stops a script
-- after its writes, which would leave jobs in no state (waiters poll as
-- well; hopper check reports the missing channel).

-- wake_ready tells every idle worker waiting on this queue that jobs may
-- be claimable in it. Scripts call it when ready goes from empty to not
-- empty, when a claim leaves jobs behind, and when a limit frees; a busy
-- queue publishes nothing more.
local function wake_ready()
  if SHARD_PUB and type(redis.pcall('SPUBLISH', PREFIX .. ':{' .. PREFIX .. ':' .. QUEUE .. '}:ready', QUEUE)) == 'number' then
    return
  end
  redis.pcall('PUBLISH', PREFIX .. ':ready', QUEUE)
end

-- wake_sched tells every scheduler waiting on this queue that its next due
-- time moved earlier.
local function wake_sched()
  if SHARD_PUB and type(redis.pcall('SPUBLISH', PREFIX .. ':{' .. PREFIX .. ':' .. QUEUE .. '}:sched', QUEUE)) == 'number' then
    return
  end
  redis.pcall('PUBLISH', PREFIX .. ':sched', QUEUE)
end

-- wake_events tells the event readers blocked on this queue that its
-- stream has a new entry (events.lua, events.go).
local function wake_events()
  if SHARD_PUB and type(redis.pcall('SPUBLISH', PREFIX .. ':{' .. PREFIX .. ':' .. QUEUE .. '}:ev', QUEUE)) == 'number' then
    return
  end
  redis.pcall('PUBLISH', PREFIX .. ':ev', QUEUE)
end

-- earliest returns the lowest score of zset z, or nil when it is empty
-- (the unack set's sentinel, at +inf, does not count; see keys.go).
local function earliest(z)
  local r = rcall('ZRANGE', z, '0', '0', 'WITHSCORES')
  if r[1] then
    local s = tonumber(r[2])
    if s ~= math.huge then return s end
  end
  return nil
end

-- leases_until returns whether unack set z holds a lease that ends at or
-- before bound (a string: ms, or "(+inf" for any lease; the sentinel at
-- +inf does not count). ZCOUNT answers with an integer, where a score read
-- back (earliest) makes Redis 7.0 format a double, about 3,800
-- instructions.
local function leases_until(z, bound)
  return rcall('ZCOUNT', z, '-inf', bound) > 0
end

-- id_of returns the job ID of an unack member "id|token". IDs may contain
-- '|', tokens may not, so the last '|' separates them.
local function id_of(member)
  return string.match(member, '^(.*)|%d+$')
end
