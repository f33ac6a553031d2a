-- kind_search.lua: a search of one state of one queue through its kind
-- index (read-only; see jobs.go and kidx/on.lua).
--- @flags no-writes
--- @include conf state records ready kinds kidx/on
--- @keys pending retry garbage done unack
--
-- ARGV: 1 state, 2 offset in the index, 3 how many entries to examine, 4
-- newest first (0/1), 5 "shorter" to walk the index only when it holds
-- fewer jobs than the state, 6 text (lower case, '' for none), 7 ID
-- prefix ('' for none), 8 the most matches to return, 9 kind
-- Returns {-1} when the queue keeps no complete kind index, {-2} when
-- "shorter" finds the state no longer than the index; else, as list.lua's
-- search, {total, examined, score1, member1, value1, attempt info1,
-- errors1, result1, cancelled1, ...} where total counts the index and
-- member is "id|token" in unack.

read_fields()
if not has_shape('K') or M.kib then return {-1} end
local state, off, cnt, rev = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local text, prefix, most, kind = ARGV[6], ARGV[7], tonumber(ARGV[8]), ARGV[9]
local zsets = {pending = K.pending, retry = K.retry, garbage = K.garbage, done = K.done, unack = K.unack}
local lo, hi = kidx_range(kind)
local total = rcall('ZLEXCOUNT', K.kinds, lo, hi)
if ARGV[5] == 'shorter' then
  local n
  if state == 'ready' then n = ready_count() else n = rcall('ZCOUNT', zsets[state], '-inf', '(inf') end
  if total >= n then return {-2} end
end
local got
if rev then
  got = rcall('ZRANGE', K.kinds, hi, lo, 'BYLEX', 'REV', 'LIMIT', off, cnt)
else
  got = rcall('ZRANGE', K.kinds, lo, hi, 'BYLEX', 'LIMIT', off, cnt)
end
if #got == 0 then return {total, 0} end
local ids, skip = {}, #kind + 15
for i = 1, #got do ids[i] = string.sub(got[i], skip) end
local vals = call_chunked_flat('HMGET', K.jobs, ids)
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
      local _, _, tok = parse_att(rcall('HGET', K.att, id))
      member = id .. '|' .. tok
      score = tok ~= '' and rcall('ZSCORE', K.unack, member)
    elseif state == 'ready' then
      ok = job_state(id) == 'ready'
    else
      score = rcall('ZSCORE', zsets[state], id)
    end
    ok = ok and score
  end
  if ok then
    keep_m[#keep_m + 1], keep_s[#keep_s + 1], keep_i[#keep_i + 1] = member, score, id
  end
end
return append_records({total, examined}, keep_i, keep_m, keep_s)
