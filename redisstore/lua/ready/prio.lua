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

local function ready_lean() return nil end

local function ready_lean_ok() return false end
