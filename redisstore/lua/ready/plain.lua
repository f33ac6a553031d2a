-- ready/plain.lua: the ready state of a plain queue: one list, first in
-- first out. This file is also the contract of the ready slot, which
-- ready/prio.lua and ready/group.lua keep too (lua.go):
--
--   ready_note(vals)           jobs with stored values vals were stored, in
--                              any state: record what the queue's shape
--                              needs for them (levels, groups)
--   ready_push(ids, front, vals) -> woke
--                              ids became ready, to the back of their
--                              list (front: the head, the last ID
--                              first, as LPUSH puts them); vals their
--                              stored values, nil to read them when needed;
--                              woke: a list went from empty to not
--   ready_pop(n, now) -> ids, retry_ms, more, after
--                              take up to n in claim order; retry_ms when
--                              held groups free (0 none); more: jobs remain;
--                              after: i -> µs the i-th waits before it
--                              starts (a group's smooth rate; nil: none)
--   ready_any() -> bool        is any job ready? (the one way to ask)
--   ready_count() -> n
--   ready_remove(id, v) -> 1|0 take job id (stored value v) out
--   ready_page(off, cnt, rev) -> ids, total
--                              a page in listing order (claim order; rev:
--                              the reverse), and how many are ready
--   ready_heads() -> ids       the first job of each list, for the oldest
--   ready_take(n) -> ids       remove up to n in listing order
--   ready_ended(ids) -> woke   jobs ids left unack (caps)
--   ready_hold(id, untl) -> held
--                              a snooze of job id holds claims until untl:
--                              true when the ready state held it (its
--                              group), false to hold the queue
--   ready_sweep(now)           once a minute: forget what quiet parts keep
--   ready_config()             the queue's settings changed (config.lua)
--   ready_lean(rare, ...) -> marks, at
--                              the lean ways of a variant with a shape
--                              (claim_lean.lua, ends_lean.lua): when the
--                              queue fits the one the slot serves lean,
--                              read the marks named ... after the slot's
--                              own (the caller's from index at + 1), see
--                              that none of the keys of the list rare
--                              (nil: none) exists, set the fields of C and
--                              M the slot's code reads, and return the
--                              marks read; else nil
--   ready_lean_ok() -> bool    after read_fields: whether ready_lean
--                              would serve the queue (the long way's ack
--                              says so to the store: ends_fast.lua)
--- @keys ready

local function ready_note() end

local function ready_push(ids, front)
  if #ids == 0 then return false end
  return call_chunked(front and 'LPUSH' or 'RPUSH', K.ready, ids, 1) == #ids
end

local function ready_pop(n)
  local got = rcall('LPOP', K.ready, SMALL[n] or str(n))
  if not got then return {}, 0, false end
  return got, 0, #got == n and rcall('LLEN', K.ready) > 0
end

local function ready_any()
  return rcall('LLEN', K.ready) > 0
end

local function ready_count()
  return rcall('LLEN', K.ready)
end

local function ready_remove(id)
  return rcall('LREM', K.ready, -1, id)
end

local function ready_page(off, cnt, rev)
  local total = rcall('LLEN', K.ready)
  local ids = {}
  if cnt <= 0 or off >= total then return ids, total end
  if rev then
    local got = rcall('LRANGE', K.ready, -(off + cnt), -(off + 1))
    for i = #got, 1, -1 do ids[#ids + 1] = got[i] end
  else
    ids = rcall('LRANGE', K.ready, off, off + cnt - 1)
  end
  return ids, total
end

local function ready_heads()
  local h = rcall('LINDEX', K.ready, 0)
  if h then return {h} end
  return {}
end

local function ready_take(n)
  return rcall('LPOP', K.ready, n) or {}
end

local function ready_ended() return false end

local function ready_hold() return false end

local function ready_sweep() end

local function ready_config() end

-- A plain queue's lean ways read the lean mark (lean.lua); a variant with
-- a shape that this slot serves (limits, the kind index) has none.
local function ready_lean() return nil end

local function ready_lean_ok() return false end
