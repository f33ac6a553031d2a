-- kinds.lua: the kind of a job, read from its value (envelope.go), for
-- its events and the kind index.
--- @keys jobs

-- kind_at returns the kind in a job's envelope whose msgpack array header
-- is byte p of v ('' when v is not what hopper writes).
local function kind_at(v, p)
  local b = string.byte(v, p + 1)
  if not b then return '' end
  if b >= 0xa0 and b <= 0xbf then return string.sub(v, p + 2, p + 1 + b - 0xa0) end
  if b == 0xd9 then
    local n = string.byte(v, p + 2) or 0
    return string.sub(v, p + 3, p + 2 + n)
  end
  return ''
end

-- kind_of returns the kind of a job from its stored value
-- "<enqueuedMs>,<maxRetries>,<msgpack>".
local function kind_of(v)
  if not v then return '' end
  local c1 = string.find(v, ',', 1, true)
  local c2 = c1 and string.find(v, ',', c1 + 1, true)
  if not c2 then return '' end
  return kind_at(v, c2 + 1)
end

-- kind_of_new returns the kind of a job from the value an enqueue sends,
-- "<maxRetries>,<msgpack>".
local function kind_of_new(v)
  local c1 = string.find(v, ',', 1, true)
  if not c1 then return '' end
  return kind_at(v, c1 + 1)
end

-- kinds_of returns the kinds of jobs ids, read from the jobs hash.
local function kinds_of(ids)
  local vals = call_chunked_flat('HMGET', K.jobs, ids)
  local out = {}
  for i = 1, #ids do out[i] = kind_of(vals[i]) end
  return out
end
