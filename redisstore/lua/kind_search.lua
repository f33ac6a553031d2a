-- kind_search.lua: a search of one state of one queue through its kind
-- index (read-only; see jobs.go and lib_kidx.lua).
--
-- KEYS: 1 the kind's index zset, 2 jobs hash, 3 attempt info hash, 4 error
--       history hash, 5 results hash, 6 cancelled set, 7 config hash,
--       8 ready list, 9 pending, 10 retry, 11 garbage, 12 done, 13 unack
--       (the sorted sets that say a job's state, lib_state.lua)
-- ARGV: 1 state, 2 offset in the index, 3 how many entries to examine,
--       4 newest first (0/1), 5 "shorter" to walk the index only when it
--       holds fewer jobs than the state, 6 text (lower case, '' for none),
--       7 ID prefix ('' for none), 8 the most matches to return, 9 kind
-- Returns {-1} when the queue keeps no complete kind index, {-2} when
-- "shorter" finds the state no longer than the index; else, as list.lua's
-- search, {total, examined, score1, member1, value1, attempt info1,
-- errors1, result1, cancelled1, ...} where total counts the index and
-- member is "id|token" in unack.

local cf = redis.call('HMGET', KEYS[7], 'ki', 'kib', 'pm', 'gm')
if not cf[1] or cf[2] then return {-1} end
local state, off, cnt, rev = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local text, prefix, most, kind = ARGV[6], ARGV[7], tonumber(ARGV[8]), ARGV[9]
local zsets = {pending = KEYS[9], retry = KEYS[10], garbage = KEYS[11], done = KEYS[12], unack = KEYS[13]}
local total = redis.call('ZCARD', KEYS[1])
if ARGV[5] == 'shorter' then
  local n = 0
  if state == 'ready' then
    n = ready_count(KEYS[8], cf[3], cf[4], KEYS[2])
  else
    n = redis.call('ZCOUNT', zsets[state], '-inf', '(inf')
  end
  if total >= n then return {-2} end
end
local ids
if rev then
  ids = redis.call('ZRANGE', KEYS[1], off, off + cnt - 1, 'REV')
else
  ids = redis.call('ZRANGE', KEYS[1], off, off + cnt - 1)
end
if #ids == 0 then return {total, 0} end
local vals = call_chunked_flat('HMGET', KEYS[2], ids)
local keep_m, keep_s, keep_i = {}, {}, {}
local examined = 0
for i = 1, #ids do
  if #keep_i == most then break end
  examined = i
  local id, v = ids[i], vals[i]
  local ok = v and kind_of(v) == kind and search_keeps(id, v, prefix, text)
  local member, score = id, ''
  if ok then
    if state == 'unack' then
      local _, _, tok = parse_att(redis.call('HGET', KEYS[3], id))
      member = id .. '|' .. tok
      score = tok ~= '' and redis.call('ZSCORE', KEYS[13], member)
    elseif state == 'ready' then
      ok = job_state(id, KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[3]) == 'ready'
    else
      score = redis.call('ZSCORE', zsets[state], id)
    end
    ok = ok and score
  end
  if ok then
    keep_m[#keep_m + 1], keep_s[#keep_s + 1], keep_i[#keep_i + 1] = member, score, id
  end
end
return append_records({total, examined}, keep_i, keep_m, keep_s, KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
