-- list.lua: a page of one state of one queue (read-only; see jobs.go).
--- @flags no-writes
--- @include conf ready records
--- @keys pending unack retry garbage done
--
-- ARGV: 1 state, 2 offset, 3 count, 4 newest first (0/1); to search
-- (store.Searcher), 5 kind, 6 text (lower case), 7 ID prefix ('' for none
-- of each), 8 the most matches to return: count is then how many jobs to
-- examine from offset
-- Returns {total, score1, id1, value1, attempt info1, errors1, result1,
-- cancelled1, score2, ...}. Unack members "id|token" are returned as they
-- are in place of the id, scores are '' for ready. A search returns
-- {total, examined, score1, ...} with the jobs whose stored value holds
-- the kind and (ASCII case aside) the text, and whose ID has the prefix:
-- a superset the caller narrows.

read_fields()
local state = ARGV[1]
local off, cnt, rev = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local members, scores, total = {}, {}, 0
if state == 'ready' then
  -- Ready in listing order (the ready slot's ready_page).
  members, total = ready_page(off, cnt, rev)
  for i = 1, #members do scores[i] = '' end
else
  local z = ({pending = K.pending, unack = K.unack, retry = K.retry, garbage = K.garbage, done = K.done})[state]
  -- Real scores are finite; '(inf' leaves out the unack sentinel.
  total = rcall('ZCOUNT', z, '-inf', '(inf')
  local got
  if rev then
    got = rcall('ZRANGE', z, '(inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', off, cnt, 'WITHSCORES')
  else
    got = rcall('ZRANGE', z, '-inf', '(inf', 'BYSCORE', 'LIMIT', off, cnt, 'WITHSCORES')
  end
  for i = 1, #got, 2 do
    members[#members + 1] = got[i]
    scores[#scores + 1] = got[i + 1]
  end
end
local ids = {}
for i = 1, #members do
  if state == 'unack' then ids[i] = id_of(members[i]) else ids[i] = members[i] end
end
local out = {total}
if ARGV[8] then
  -- A search: keep the members that may match, up to ARGV[8] of them.
  local kind, text, prefix, most = ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8])
  local vals = {}
  if kind ~= '' or text ~= '' then vals = call_chunked_flat('HMGET', K.jobs, ids) end
  local keep_m, keep_s, keep_i = {}, {}, {}
  local examined = 0
  for i = 1, #ids do
    if #keep_i == most then break end
    examined = i
    local id, v = ids[i], vals[i]
    if (kind == '' or v and string.find(v, kind, 1, true) ~= nil) and search_keeps(id, v, prefix, text) then
      keep_m[#keep_m + 1], keep_s[#keep_s + 1], keep_i[#keep_i + 1] = members[i], scores[i], id
    end
  end
  members, scores, ids = keep_m, keep_s, keep_i
  out[2] = examined
end
return append_records(out, ids, members, scores)
