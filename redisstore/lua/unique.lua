-- unique.lua: unique keys (store.NewJob.UniqueKey). The lock hash locks
-- maps a lock field to "holderID,untilMs" ('' until: held until the job
-- ends); the extras hash maps the ID of a job enqueued with a unique key
-- to ",lockField" (the part before the comma held a retention in earlier
-- versions, and is ignored).
--- @keys locks extras

-- ex_lock returns the lock field of an extras value ('' for none).
local function ex_lock(v)
  if not v then return '' end
  return string.match(v, '^%d*,(.*)$') or ''
end

-- unique_holder returns the ID of the job that holds lock field f at now,
-- or nil.
local function unique_holder(f, now)
  local h = rcall('HGET', K.locks, f)
  if not h then return nil end
  local hid, untl = string.match(h, '^(.*),(%d*)$')
  if untl == '' or tonumber(untl) > now then return hid end
  return nil
end

-- unique_take gives lock field f to job id, until ms untl ('' for until
-- the job ends).
local function unique_take(id, f, untl)
  rcall('HSET', K.extras, id, ',' .. f)
  rcall('HSET', K.locks, f, id .. ',' .. untl)
end

-- unique_extras returns the extras of ids by ID (exmap for
-- release_unique), or nil when no job of the queue has any: one HLEN.
local function unique_extras(ids)
  if rcall('HLEN', K.extras) == 0 then return nil end
  local exmap = {}
  local vals = call_chunked_flat('HMGET', K.extras, ids)
  for i = 1, #ids do exmap[ids[i]] = vals[i] end
  return exmap
end

-- release_unique frees the unique keys held by ids: each job's lock field
-- (from its extras, in exmap id -> value when the caller fetched them, or
-- read here) is deleted from the lock hash when that job still holds it.
local function release_unique(ids, exmap)
  if #ids == 0 then return end
  if not exmap then
    exmap = unique_extras(ids)
    if not exmap then return end
  end
  local mine, check = {}, {}
  for i = 1, #ids do
    local f = ex_lock(exmap[ids[i]])
    if f ~= '' then
      mine[#mine + 1] = ids[i]
      check[#check + 1] = f
    end
  end
  if #check == 0 then return end
  local holders = call_chunked_flat('HMGET', K.locks, check)
  local drop = {}
  for i = 1, #check do
    local h = holders[i]
    if h and string.match(h, '^(.*),%d*$') == mine[i] then
      drop[#drop + 1] = check[i]
    end
  end
  if #drop > 0 then call_chunked('HDEL', K.locks, drop, 1) end
end

-- unique_forget drops the extras of ids, deleted for good.
local function unique_forget(ids, exmap)
  if exmap ~= nil or rcall('HLEN', K.extras) > 0 then call_chunked('HDEL', K.extras, ids, 1) end
end
