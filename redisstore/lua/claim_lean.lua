-- claim_lean.lua: the lean way of claim.lua, for a lean queue (lean.lua:
-- no shape, no events to write): the clock from the lean mark, six of the
-- marks' eleven fields read, and none of the set-up of the events and
-- limits, which were much of the Lua of a claim of one or two jobs, as a
-- trickle makes them (bench/instr/luaprof.sh, docs/performance.md, "A
-- queue that sees one job at a time"). It takes the jobs with
-- claimed.lua's claim_take, as the long way does.
--
-- It is tried only when the store asks (ARGV[5] "l"), which it does while
-- the last call of the queue that could tell found the lean mark set
-- (claim.go): a claim of any other queue, an idle worker's poll included,
-- pays for nothing here. Its replies end with "L", for the store to go on
-- asking; a claim that asked and went the long way tells the store so by
-- its reply's lack of it.
--- @include ready claimed lean
--- @marks lw sw

-- first_claim_lean serves the call when it can (lua.go: firsts), or
-- returns nil, having written nothing, for the rest of claim.lua: the
-- store asked, the variant is the plain one, the lean mark is set (its
-- PTTL, through pcall as an ACL user may not run PTTL, gives the clock,
-- rounded up for the deadline as now_ms rounds it) and the marks say no
-- shape. A paused or held queue, and one with nothing ready, answer as in
-- claim.lua.
local function first_claim_lean()
  if ARGV[5] ~= 'l' or SHAPE ~= '' then return nil end
  local t = redis.pcall('PTTL', K.lean)
  if type(t) ~= 'number' then return nil end
  local nows = lean_at(t)
  if not nows then return nil end
  local mk = rcall('HMGET', K.marks, 'sh', 'paused', 'hold', 'rg', 'sw', 'lw')
  if mk[1] and mk[1] ~= '' then return nil end
  local now, hold = tonumber(nows), tonumber(mk[3])
  local back = (mk[2] == '1' and tonumber(ARGV[3])) or (hold and hold > now and hold - now)
  if back then return {now, 0, back, 0, 0, 'L'} end
  reset_base()
  M.sw, M.lw = mk[5], mk[6] -- for claim_sched and claim_wake
  local max = tonumber(ARGV[1])
  local ids, _, more = ready_pop(max, now)
  if #ids == 0 then return {now, 0, 0, 0, 0, 'L'} end
  local out = claim_take(ids, now, now + 1 + tonumber(ARGV[2]), ARGV[4], false)
  out[5] = tonumber(mk[4]) or 0
  if #ids == max and more then claim_wake(now) end
  out[#out + 1] = 'L'
  return out
end
