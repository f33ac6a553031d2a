-- events_read.lua: read a queue's event stream after a position
-- (read-only; see events.go and events.lua).
--- @flags no-writes
--- @keys events
--- @marks evh evg
--
-- ARGV: 1 the number n of the position's entry (entry "1-k" is number
--       k+1, 0 is before the first), 2 "1" when entry n was read
--       to its end, "0" when only part of it was, "s" to read from the
--       oldest entry kept (n is then 0), 3 the most entries to return (0:
--       none, only the last number), 4 the position's generation ('' for
--       a position without one)
-- Returns {lost, last, gen, entry...}: lost is 1 when entries after the
-- position were trimmed away (or the stream is gone, or started over: a
-- position of another generation, or past the newest entry), and then
-- the entries are the oldest kept, or when the entries returned skip a
-- number (steps that nobody read wrote nothing, events.lua), and then
-- they are those after the position; last is the number of the newest
-- entry (0 for none), or of a hole marked after it (evh); gen is the
-- stream's generation (the mark evg, events.lua; '' before a step of this
-- release wrote an entry); each entry is {id, {field, value, ...}} as
-- XRANGE returns it.

local k = K.events
local n, mode, count, pgen = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4]
local whole = mode ~= '0'

local function num(id)
  return (tonumber(string.match(id, '^1%-(%d+)$')) or -1) + 1
end

local newest = rcall('XREVRANGE', k, '+', '-', 'COUNT', 1)[1]
local last = 0
if newest then last = num(newest[1]) end
-- A hole marked after the newest entry (events_arm.lua) is a number
-- handed out: a reader may stand on it.
read_fields()
local h = tonumber(M.evh)
if h and h > last then last = h end
local gen = M.evg or ''
if count == 0 then return {0, last, gen} end
-- A position of another generation stands in a stream that started over.
local other = mode ~= 's' and pgen ~= '' and gen ~= '' and pgen ~= gen
if not newest then
  if n > last or other then return {1, last, gen} end
  return {0, last, gen}
end
local first = num(rcall('XRANGE', k, '-', '+', 'COUNT', 1)[1][1])
local lost = 0
if other or (mode ~= 's' and (n > last or (whole and n + 1 < first) or (not whole and n < first))) then
  lost, n, whole = 1, 0, true
end
local start = '-'
if n > 0 then
  start = '1-' .. str(n - 1)
  if whole then start = '(' .. start end
end
local entries = rcall('XRANGE', k, start, '+', 'COUNT', count)
local m = #entries
if lost == 0 and mode ~= 's' and m > 0 then
  -- A hole: the first entry is not the one after the position, or the
  -- numbers of those returned are not consecutive.
  local a = num(entries[1][1])
  local want = n
  if whole then want = n + 1 end
  if a ~= want or num(entries[m][1]) - a + 1 ~= m then lost = 1 end
end
local out = {lost, last, gen}
for i = 1, m do out[#out + 1] = entries[i] end
return out
