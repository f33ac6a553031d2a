-- list.lua: a page of one state of one queue (read-only; see jobs.go).
--
-- KEYS: 1 the state's list (ready) or sorted set, 2 jobs hash, 3 attempt
--       info hash, 4 error history hash, 5 results hash, 6 cancelled set
-- ARGV: 1 "list" or "zset", 2 offset, 3 count, 4 newest first (0/1),
--       5 members are unack "id|token" (0/1)
-- Returns {total, score1, id1, value1, attempt info1, errors1, result1,
-- cancelled1, score2, ...}. Unack members "id|token" are returned as they
-- are in place of the id, scores are '' for ready.

local c = KEYS[1]
local off, cnt, rev = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local members, scores = {}, {}
local total
if ARGV[1] == 'list' then
  total = redis.call('LLEN', c)
  local got
  if rev then
    got = redis.call('LRANGE', c, -(off + cnt), -(off + 1))
    for i = #got, 1, -1 do members[#members + 1] = got[i] end
  else
    members = redis.call('LRANGE', c, off, off + cnt - 1)
  end
  for i = 1, #members do scores[i] = '' end
else
  -- Real scores are finite; '(inf' leaves out the unack sentinel.
  total = redis.call('ZCOUNT', c, '-inf', '(inf')
  local got
  if rev then
    got = redis.call('ZRANGE', c, '(inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', off, cnt, 'WITHSCORES')
  else
    got = redis.call('ZRANGE', c, '-inf', '(inf', 'BYSCORE', 'LIMIT', off, cnt, 'WITHSCORES')
  end
  for i = 1, #got, 2 do
    members[#members + 1] = got[i]
    scores[#scores + 1] = got[i + 1]
  end
end
local ids = {}
for i = 1, #members do
  if ARGV[5] == '1' then ids[i] = id_of(members[i]) else ids[i] = members[i] end
end
local recs = load(ids, KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
local out = {total}
for i = 1, #members do
  out[#out + 1] = scores[i]
  out[#out + 1] = members[i]
  for k = 2, 6 do out[#out + 1] = recs[(i - 1) * 6 + k] end
end
return out
