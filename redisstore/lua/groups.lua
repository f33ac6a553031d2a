-- groups.lua: the groups of one queue (read-only; see groups.go).
--- @flags no-writes
--- @include conf groups/store groups/caps groups/names
--- @keys g_holds
--
-- ARGV: 1 most groups to return (0: all)
-- Returns {cap per group of the queue, then per group, sorted by name:
-- name, ready, running, own cap ('' for none), when its hold ends (ms;
-- '' for none)}, for the groups with ready or running jobs, a cap of
-- their own or a hold in force (groups/holds.lua).

read_fields()
local most = tonumber(ARGV[1])
local seen, names = {}, {}
local function add(list)
  for _, g in ipairs(list) do
    if not seen[g] then
      seen[g] = true
      names[#names + 1] = g
    end
  end
end
add(rcall('SMEMBERS', K.g_known))
add(rcall('HKEYS', K.g_running))
add(rcall('HKEYS', K.g_caps))
local now = now_ms()
add(rcall('ZRANGE', K.g_holds, '(' .. now, '+inf', 'BYSCORE'))
-- Without caps the running counts are not kept: count them now.
local counted
if not groups_capped() then
  counted = running_now()
  local more = {}
  for g in pairs(counted) do more[#more + 1] = g end
  add(more)
end
-- The first 2 * most by name without sorting them all (groups listed
-- without jobs, running or cap are rare), all when those fall short.
local all = names
local complete
names, complete = first_in_order(names, most > 0 and 2 * most or nil)
local n, i = 0, 0
local out = {C.gmax or '0'}
while not (most > 0 and n == most) do
  if i == #names then
    if complete then break end
    names, complete = first_in_order(all, nil)
    if i == #names then break end
  end
  i = i + 1
  local g = names[i]
  local r = GS.len(g)
  local run
  if counted then run = counted[g] or 0 else run = tonumber(rcall('HGET', K.g_running, g)) or 0 end
  local own = rcall('HGET', K.g_caps, g)
  local held = rcall('ZSCORE', K.g_holds, g)
  if held and tonumber(held) <= now then held = nil end
  if r > 0 or run > 0 or own or held then
    n = n + 1
    out[#out + 1] = g
    out[#out + 1] = r
    out[#out + 1] = run
    out[#out + 1] = own or ''
    out[#out + 1] = held or ''
  end
end
return out
