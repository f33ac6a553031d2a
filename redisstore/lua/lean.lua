-- lean.lua: the lean mark (the key lean). While it exists, the enqueue of
-- plain jobs due now into a plain queue skips reading the queue's marks
-- and TIME (adds/plain.lua: first_adds), plain acks take finish's
-- lean way (ends_lean.lua), which reads three marks of the nine, and
-- claims take claim's when the store asks (claim_lean.lua): the
-- mark says the queue has no shape and its steps write no events (nobody
-- reads them, and the step that skipped the first entry has marked it,
-- evs). Its expiry, set to LEAN_UNTIL, gives the store's clock: PTTL is
-- LEAN_UNTIL minus now, one command with an integer reply where TIME's
-- reply is a table of two strings (what that saves:
-- bench/instr/callgrind.sh, and docs/performance.md, "The lean mark").
--
-- Whatever can end what the mark says takes it away: a shape change
-- (conf.lua: set_shape), a queue's new settings (config.lua), a reader
-- (events_arm.lua); and, for a release before the mark that changed the
-- shape, the scheduler (maintain.lua). A mark lost (evicted, restored
-- without its expiry) only sends enqueues back the long way, which sets
-- it again.
--- @keys lean

-- The mark expires at LEAN_UNTIL (Unix ms, in 2286: lua.go). Its
-- reading is taken only while the time it gives lies between 2020 and
-- 2100 (the TTLs LEAN_TTL_MIN and LEAN_TTL_MAX): an expiry that anything
-- else set sends the call the long way, which sets it again.
local LEAN_TTL_MIN = LEAN_UNTIL - 4102444800000
local LEAN_TTL_MAX = LEAN_UNTIL - 1577836800000

-- The clock's string, kept for the ms it was made for (LEAN_AT), and
-- made in two parts, each made once: the seconds (made again once a
-- second) and the three digits of the ms (a thousand strings at most,
-- kept while the library stays loaded), as a number formatted costs a
-- sprintf.
local LEAN_AT, LEAN_AT_S, LEAN_SEC, LEAN_SEC_S
local LEAN_MS = {}

-- lean_at returns the store's clock in Unix ms, rounded down, as a
-- string, from t, the lean mark's PTTL (K.lean's), when the mark is set;
-- else nil.
local function lean_at(t)
  if t < LEAN_TTL_MIN or t > LEAN_TTL_MAX then return nil end
  local ms = LEAN_UNTIL - t
  if ms == LEAN_AT then return LEAN_AT_S end
  local low = ms % 1000
  local sec = ms - low
  if sec ~= LEAN_SEC then LEAN_SEC, LEAN_SEC_S = sec, tostring(sec / 1000) end
  local l = LEAN_MS[low]
  if not l then
    l = string.sub(tostring(1000 + low), 2)
    LEAN_MS[low] = l
  end
  LEAN_AT, LEAN_AT_S = ms, LEAN_SEC_S .. l
  return LEAN_AT_S
end

-- lean_on sets the lean mark: the caller has seen that the queue has no
-- shape and that its steps write no events.
local function lean_on()
  rcall('SET', K.lean, '', 'PXAT', LEAN_UNTIL_S)
end

-- lean_off takes the lean mark away.
local function lean_off()
  rcall('DEL', K.lean)
end
