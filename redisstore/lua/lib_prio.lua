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

-- has_levels reports whether config field pm names levels besides 0.
local function has_levels(pm)
  local m = tonumber(pm)
  return m ~= nil and m ~= 0
end

-- The rest of the levels' functions, and the groups' (lib_group.lua), are
-- built on first use by ext(), not at every call: a plain script defines
-- its top-level functions anew each time it runs, and those are many,
-- while a queue without priorities or groups needs none of them. In a
-- function library the table is built once and kept from call to call
-- (about 22,000 instructions a grouped claim saves): its functions hold
-- no state of a call, only the library's helpers and their arguments.
local ext_build, ext_cache
local function ext()
  if not ext_cache then ext_cache = ext_build() end
  return ext_cache
end

-- ready_len returns how many jobs are ready, over every level (not the
-- groups': see lib_group.lua).
local function ready_len(ready, pm)
  if not has_levels(pm) then return redis.call('LLEN', ready) end
  return ext().levels_len(ready, pm)
end

-- pop_ready takes up to n ready IDs in claim order: the highest priority
-- first, first in first out within one. It returns false when none: one
-- LPOP per level tried, whatever n.
local function pop_ready(ready, pm, n)
  if not has_levels(pm) then return redis.call('LPOP', ready, n) end
  return ext().levels_pop(ready, pm, n)
end
