-- forget.lua: a job's records dropped for good, by delete.lua and, when
-- a retention ends, duties.lua: its value, attempt info, errors, result,
-- cancelled mark, extras and progress, and its kind-index entry. The
-- caller releases its unique key first where it may hold one.
--- @include kidx
--- @keys jobs att errs results cancelled extras progress

-- purge forgets jobs ids.
local function purge(ids)
  index_drop(ids)
  call_chunked('HDEL', K.jobs, ids, 1)
  call_chunked('HDEL', K.att, ids, 1)
  call_chunked('HDEL', K.errs, ids, 1)
  call_chunked('HDEL', K.results, ids, 1)
  call_chunked('SREM', K.cancelled, ids, 1)
  call_chunked('HDEL', K.extras, ids, 1)
  if rcall('HLEN', K.progress) > 0 then call_chunked('HDEL', K.progress, ids, 1) end
end
