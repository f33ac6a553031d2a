-- ready/prio.lua: the ready state of a queue with priority levels
-- (levels.lua), for the contract in ready/plain.lua.
--- @include levels
--- @keys jobs

local function ready_note(vals)
  levels_note(vals)
end

local function ready_push(ids, front, vals)
  if #ids == 0 then return false end
  if tonumber(M.pm or 0) == 0 then
    return call_chunked(front and 'LPUSH' or 'RPUSH', K.ready, ids, 1) == #ids
  end
  return levels_push(ids, vals or call_chunked_flat('HMGET', K.jobs, ids), front)
end

local function ready_pop(n)
  local ids = levels_pop(n)
  return ids, 0, #ids == n and levels_any()
end

local function ready_any()
  return levels_any()
end

local function ready_count()
  return levels_len()
end

local function ready_remove(id, v)
  return levels_remove(id, v)
end

local function ready_page(off, cnt, rev)
  return levels_page(off, cnt, rev)
end

local function ready_heads()
  return levels_heads()
end

local function ready_take(n)
  return levels_take(n)
end

local function ready_ended() return false end

local function ready_hold() return false end

local function ready_sweep() end

local function ready_config() end

-- ready_lean: the lean ways of claims and acks serve a queue of priority
-- levels alone (the shape P, this variant's) as they serve a plain queue:
-- a claim pops the levels' lists the mark pm names, an ack writes
-- nothing of them. Its two marks come first in the reply.
local function ready_lean(rare, ...)
  if SHAPE ~= 'P' then return nil end
  local mk = rcall('HMGET', K.marks, 'sh', 'pm', ...)
  if mk[1] ~= 'P' or (rare and rcall('EXISTS', unpack(rare)) > 0) then return nil end
  M.sh, M.pm = 'P', mk[2]
  return mk, 2
end

local function ready_lean_ok()
  return SHAPE == 'P' and M.sh == 'P'
end
