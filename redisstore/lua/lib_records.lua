-- lib_records.lua: read whole job records, for the read-only scripts
-- getjob.lua, list.lua and kind_search.lua (see scripts.go).

-- load returns, for ids, a flat list of seven values per job: value,
-- attempt info, error history, result, cancelled (0/1), plus two the caller
-- fills (state and score). Missing parts are ''.
local function load(ids, kj, ka, ke, ko, kx)
  local out = {}
  if #ids == 0 then return out end
  local v = redis.call('HMGET', kj, unpack(ids))
  local a = redis.call('HMGET', ka, unpack(ids))
  local e = redis.call('HMGET', ke, unpack(ids))
  local o = redis.call('HMGET', ko, unpack(ids))
  local x = redis.call('SMISMEMBER', kx, unpack(ids))
  for i = 1, #ids do
    out[#out + 1] = ids[i]
    out[#out + 1] = v[i] or ''
    out[#out + 1] = a[i] or ''
    out[#out + 1] = e[i] or ''
    out[#out + 1] = o[i] or ''
    out[#out + 1] = x[i]
  end
  return out
end

-- append_records appends to out, for each of ids, its score and member
-- (scores[i], members[i]) and the five values load reads: the replies of
-- list.lua and kind_search.lua.
local function append_records(out, ids, members, scores, kj, ka, ke, ko, kx)
  local recs = load(ids, kj, ka, ke, ko, kx)
  for i = 1, #members do
    out[#out + 1] = scores[i]
    out[#out + 1] = members[i]
    for k = 2, 6 do out[#out + 1] = recs[(i - 1) * 6 + k] end
  end
  return out
end

-- search_keeps reports whether a search keeps job id, whose stored value is
-- v (false when not read): its ID starts with prefix and v holds text
-- (lower case; ASCII case aside). '' passes either. For list.lua and
-- kind_search.lua, which check the kind themselves.
local function search_keeps(id, v, prefix, text)
  if prefix ~= '' and string.sub(id, 1, #prefix) ~= prefix then return false end
  return text == '' or (v and string.find(string.lower(v), text, 1, true) ~= nil) or false
end
