-- list.lua: a page of one state of one queue (read-only; see jobs.go).
--
-- KEYS: 1 the state's list (ready) or sorted set, 2 jobs hash, 3 attempt
--       info hash, 4 error history hash, 5 results hash, 6 cancelled set,
--       7 config hash (for ready's priority levels, lib_prio.lua)
-- ARGV: 1 "list" or "zset", 2 offset, 3 count, 4 newest first (0/1),
--       5 members are unack "id|token" (0/1); to search (store.Searcher),
--       6 kind, 7 text (lower case), 8 ID prefix ('' for none of each),
--       9 the most matches to return: count is then how many jobs to
--       examine from offset
-- Returns {total, score1, id1, value1, attempt info1, errors1, result1,
-- cancelled1, score2, ...}. Unack members "id|token" are returned as they
-- are in place of the id, scores are '' for ready. A search returns
-- {total, examined, score1, ...} with the jobs whose stored value holds
-- the kind and (ASCII case aside) the text, and whose ID has the prefix:
-- a superset the caller narrows.

local c = KEYS[1]
local off, cnt, rev = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local members, scores = {}, {}
local total
if ARGV[1] == 'list' then
  -- Ready in listing order: the levels' lists one after the other,
  -- highest priority first (newest first: the same order reversed).
  -- Then each group's list, by group name, read only as far as the page
  -- reaches, the total being counted by elimination (ready_count): the
  -- commands of a page do not grow with the number of groups. Every group
  -- listed holds a job but for a few just emptied, so the page's groups
  -- are among the first off + cnt by name, which are picked without
  -- sorting them all; past them (emptied groups) all are sorted.
  local cf = redis.call('HMGET', KEYS[7], 'pm', 'gm')
  local levels = ext().level_lists(c, cf[1])
  local names, complete = {}, true
  if cf[2] then names, complete = ext().group_names(c, off + cnt, rev) end
  local grouped = #names > 0
  -- next_list returns the next list in listing order, or nil after the
  -- last.
  local li, ni = 0, 0
  local function next_group()
    if ni == #names then
      if complete then return nil end
      names, complete = ext().group_names(c, nil, rev) -- names was their first #names
    end
    if ni == #names then return nil end
    ni = ni + 1
    return ext().glist(c, names[ni])
  end
  local function next_list()
    if not rev then
      if li < #levels then
        li = li + 1
        return levels[li]
      end
      return next_group()
    end
    local g = next_group()
    if g then return g end
    if li < #levels then
      li = li + 1
      return levels[#levels + 1 - li]
    end
    return nil
  end
  total = 0
  local skip, want = off, cnt
  for l in next_list do
    if grouped and want == 0 then break end
    local len = redis.call('LLEN', l)
    total = total + len
    if want > 0 and skip < len then
      local k = math.min(want, len - skip)
      if rev then
        local got = redis.call('LRANGE', l, -(skip + k), -(skip + 1))
        for i = #got, 1, -1 do members[#members + 1] = got[i] end
      else
        for _, id in ipairs(redis.call('LRANGE', l, skip, skip + k - 1)) do members[#members + 1] = id end
      end
      want = want - k
      skip = 0
    else
      skip = skip - len
      if skip < 0 then skip = 0 end
    end
  end
  if grouped then total = ready_count(c, cf[1], cf[2], KEYS[2]) end
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
local out = {total}
if ARGV[9] then
  -- A search: keep the members that may match, up to ARGV[9] of them.
  local kind, text, prefix, most = ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9])
  local vals = {}
  if kind ~= '' or text ~= '' then vals = call_chunked_flat('HMGET', KEYS[2], ids) end
  local keep_m, keep_s, keep_i = {}, {}, {}
  local examined = 0
  for i = 1, #ids do
    if #keep_i == most then break end
    examined = i
    local id, v = ids[i], vals[i]
    local ok = (kind == '' or v and string.find(v, kind, 1, true) ~= nil) and search_keeps(id, v, prefix, text)
    if ok then
      keep_m[#keep_m + 1], keep_s[#keep_s + 1], keep_i[#keep_i + 1] = members[i], scores[i], id
    end
  end
  members, scores, ids = keep_m, keep_s, keep_i
  out[2] = examined
end
return append_records(out, ids, members, scores, KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
