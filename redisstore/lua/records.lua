-- records.lua: read whole job records, for the read-only scripts
-- getjob.lua, list.lua and kind_search.lua (see jobs.go).
--- @keys jobs att errs results cancelled

-- load returns, for ids, a flat list of six values per job: id, value,
-- attempt info, error history, result, cancelled (0/1). Missing parts are
-- ''.
local function load(ids)
  local out = {}
  if #ids == 0 then return out end
  local v = call_chunked_flat('HMGET', K.jobs, ids)
  local a = call_chunked_flat('HMGET', K.att, ids)
  local e = call_chunked_flat('HMGET', K.errs, ids)
  local o = call_chunked_flat('HMGET', K.results, ids)
  local x = call_chunked_flat('SMISMEMBER', K.cancelled, ids)
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
local function append_records(out, ids, members, scores)
  local recs = load(ids)
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
