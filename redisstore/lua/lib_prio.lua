-- lib_prio.lua: the priority levels of the ready state
-- (store.NewJob.Priority), for every script that adds to, takes from or
-- reads ready (needs call_chunked of lib_base.lua).
--
-- Jobs of priority 0 wait in the ready list itself; those of priority p
-- in the list ready .. ':' .. p, which has the same hash tag (one slot).
-- The config hash's field 'pm' is a bitmask of the other levels the queue
-- ever used (bit p - MIN_PRIO). It is set when a job of that priority is
-- stored and never cleared (an empty list costs an LPOP or an LLEN), so
-- while a queue never saw a priority, every script takes the one-list
-- path and the feature costs a field read. A job's priority is in its
-- value (envelope.go): "<enqueuedMs>,<maxRetries>p<priority>,...".

local MIN_PRIO, MAX_PRIO = -3, 3

-- ready_at returns the list of the ready jobs of priority p.
local function ready_at(ready, p)
  if p == 0 then return ready end
  return ready .. ':' .. p
end

-- prio_of returns the priority of a stored value (0 for nil).
local function prio_of(v)
  if not v then return 0 end
  return tonumber(string.match(v, '^%d+,%d+p(%-?%d),')) or 0
end

-- prio_of_new returns the priority of a value as an enqueue sends it,
-- "<maxRetries>[p<priority>],...".
local function prio_of_new(v)
  return tonumber(string.match(v, '^%d+p(%-?%d),')) or 0
end

-- has_levels reports whether config field pm names levels besides 0.
local function has_levels(pm)
  local m = tonumber(pm)
  return m ~= nil and m ~= 0
end

-- levels returns the priorities whose lists may hold jobs, highest (the
-- first claimed) first.
local function levels(pm)
  if not has_levels(pm) then return {0} end
  local m, out = tonumber(pm), {}
  for p = MAX_PRIO, MIN_PRIO, -1 do
    if p == 0 or bit.band(m, 2 ^ (p - MIN_PRIO)) ~= 0 then out[#out + 1] = p end
  end
  return out
end

-- ready_len returns how many jobs are ready, over every level.
local function ready_len(ready, pm)
  if not has_levels(pm) then return redis.call('LLEN', ready) end
  local n = 0
  for _, p in ipairs(levels(pm)) do n = n + redis.call('LLEN', ready_at(ready, p)) end
  return n
end

-- pop_ready takes up to n ready IDs in claim order: the highest priority
-- first, first in first out within one. It returns false when none: one
-- LPOP per level tried, whatever n.
local function pop_ready(ready, pm, n)
  if not has_levels(pm) then return redis.call('LPOP', ready, n) end
  local ids, k = {}, 0
  for _, p in ipairs(levels(pm)) do
    local got = redis.call('LPOP', ready_at(ready, p), n - k)
    if got then
      for i = 1, #got do ids[k + i] = got[i] end
      k = k + #got
      if k == n then break end
    end
  end
  if k == 0 then return false end
  return ids
end

-- mark_levels adds the priorities that are keys of ps to the config's
-- bitmask (current value pm), writing it only when it changes, and
-- returns the new mask.
local function mark_levels(conf, pm, ps)
  local m = tonumber(pm) or 0
  local m2 = m
  for p in pairs(ps) do
    if p ~= 0 then m2 = bit.bor(m2, 2 ^ (p - MIN_PRIO)) end
  end
  if m2 ~= m then redis.call('HSET', conf, 'pm', m2) end
  return m2
end
