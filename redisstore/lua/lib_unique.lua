-- lib_unique.lua: extras and unique key helpers (see scripts.go).

-- Extras (hash KEYS "ex", one field per job enqueued with a unique key):
-- ",uniqueLockField". The part before the comma held the job's own
-- retention in earlier versions (the worker now sends it with the ack) and
-- is ignored. ex_parse returns it (0 for none) and the lock field ('' for
-- none).
local function ex_parse(v)
  if not v then return 0, '' end
  local r, f = string.match(v, '^(%d*),(.*)$')
  return tonumber(r) or 0, f or ''
end

-- release_unique frees the unique keys held by ids: each job's lock field
-- (from its extras, in exmap id -> value when the caller fetched them, or
-- read here) is deleted from the lock hash k when that job still holds it.
local function release_unique(k, ex, ids, exmap)
  if #ids == 0 then return end
  if not exmap then
    if redis.call('HLEN', ex) == 0 then return end
    exmap = {}
    local vals = call_chunked_flat('HMGET', ex, ids)
    for i = 1, #ids do exmap[ids[i]] = vals[i] end
  end
  local mine, check = {}, {}
  for i = 1, #ids do
    local _, f = ex_parse(exmap[ids[i]])
    if f ~= '' then
      mine[#mine + 1] = ids[i]
      check[#check + 1] = f
    end
  end
  if #check == 0 then return end
  local holders = call_chunked_flat('HMGET', k, check)
  local drop = {}
  for i = 1, #check do
    local h = holders[i]
    if h and string.match(h, '^(.*),%d*$') == mine[i] then
      drop[#drop + 1] = check[i]
    end
  end
  if #drop > 0 then call_chunked('HDEL', k, drop, 1) end
end
