-- groups.lua: the groups of one queue (read-only; see groups.go).
--
-- KEYS: 1 ready list (lib_group.lua derives the rest), 2 config hash
-- ARGV: 1 most groups to return (0: all)
-- Returns {cap per group of the queue, then per group, sorted by name:
-- name, ready, running, own cap ('' for none)}, for the groups with ready
-- or running jobs or a cap of their own.

local ready = KEYS[1]
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
add(redis.call('SMEMBERS', ext().gkey(ready, 'gk')))
add(redis.call('HKEYS', ext().gkey(ready, 'gr')))
add(redis.call('HKEYS', ext().gkey(ready, 'gl')))
-- Without caps the running counts are not kept: count them now.
local counted
if not ext().groups_capped(ready, redis.call('HGET', KEYS[2], 'gmax')) then counted = ext().running_now(ready) end
for g in pairs(counted or {}) do
  if not seen[g] then
    seen[g] = true
    names[#names + 1] = g
  end
end
-- The first 2 * most by name without sorting them all (groups listed
-- without jobs, running or cap are rare), all when those fall short.
local all = names
local complete
names, complete = ext().first_in_order(names, most > 0 and 2 * most or nil)
local n, i = 0, 0
local out = {redis.call('HGET', KEYS[2], 'gmax') or '0'}
while not (most > 0 and n == most) do
  if i == #names then
    if complete then break end
    names, complete = ext().first_in_order(all, nil)
    if i == #names then break end
  end
  i = i + 1
  local g = names[i]
  local r = redis.call('LLEN', ext().glist(ready, g))
  local run
  if counted then run = counted[g] or 0 else run = tonumber(redis.call('HGET', ext().gkey(ready, 'gr'), g)) or 0 end
  local own = redis.call('HGET', ext().gkey(ready, 'gl'), g)
  if r > 0 or run > 0 or own then
    n = n + 1
    out[#out + 1] = g
    out[#out + 1] = r
    out[#out + 1] = run
    out[#out + 1] = own or ''
  end
end
return out
