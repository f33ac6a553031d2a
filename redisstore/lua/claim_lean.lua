-- claim_lean.lua: the lean way of claim.lua, for a lean queue (lean.lua:
-- no shape, no events to write): the clock from the lean mark, six of the
-- marks' eleven fields read, and none of the set-up of the events and
-- limits, which were much of the Lua of a claim of one or two jobs, as a
-- trickle makes them (bench/instr/luaprof.sh, docs/performance.md, "A
-- queue that sees one job at a time"). It takes the jobs with
-- claimed.lua's claim_take, as the long way does. A queue of priority
-- levels alone, and one of groups alone without caps or rate limits per
-- group, take it too (the ready slots' ready_lean: ready/prio.lua,
-- ready/group.lua), with the clock from TIME: what their claims skip of
-- the long way is most of what they cost beyond a plain one
-- (docs/performance.md, "Groups" and "Priorities").
--
-- It is tried only when the store asks (ARGV[5] "l"), which it does while
-- the last call of the queue that could tell found the lean mark set
-- (claim.go): a claim of any other queue, an idle worker's poll included,
-- pays for nothing here. Its replies end with "L", for the store to go on
-- asking; a claim that asked and went the long way tells the store so by
-- its reply's lack of it.
--- @include ready claimed lean events
--- @marks lw sw

-- first_claim_lean serves the call when it can (lua.go: firsts), or
-- returns nil, having written nothing, for the rest of claim.lua: the
-- store asked, and either the variant is the plain one, the lean mark is
-- set (its PTTL, through pcall as an ACL user may not run PTTL, gives the
-- clock, rounded up for the deadline as now_ms rounds it) and the marks
-- say no shape; or the variant's ready slot serves the queue's shape lean
-- (ready_lean) and no events are to be written (ev_unread). A paused or
-- held queue, and one with nothing ready, answer as in claim.lua.
local function first_claim_lean()
  if ARGV[5] ~= 'l' then return nil end
  local now, later, f, o
  if SHAPE == '' then
    local t = redis.pcall('PTTL', K.lean)
    if type(t) ~= 'number' then return nil end
    local nows = lean_at(t)
    if not nows then return nil end
    f, o = rcall('HMGET', K.marks, 'sh', 'paused', 'hold', 'rg', 'sw', 'lw'), 1
    if f[1] and f[1] ~= '' then return nil end
    reset_base()
    now = tonumber(nows)
    later = now + 1
  else
    -- A variant with a shape: the lean way its ready slot allows, with
    -- the clock from TIME and no events to write.
    f, o = ready_lean(nil, 'paused', 'hold', 'rg', 'sw', 'lw', 'ev', 'evr', 'evs')
    if not f then return nil end
    reset_base()
    now, later = now_ms()
    if not ev_unread(f[o + 6], f[o + 7], f[o + 8], ms_str(now)) then return nil end
  end
  local hold = tonumber(f[o + 2])
  local back = (f[o + 1] == '1' and tonumber(ARGV[3])) or (hold and hold > now and hold - now)
  if back then return {now, 0, back, 0, 0, 'L'} end
  M.sw, M.lw = f[o + 4], f[o + 5] -- for claim_sched and claim_wake
  local max = tonumber(ARGV[1])
  local ids, held, more = ready_pop(max, now)
  if #ids == 0 then return {now, 0, held, 0, 0, 'L'} end
  local out = claim_take(ids, now, later + tonumber(ARGV[2]), ARGV[4], false)
  out[5] = tonumber(f[o + 3]) or 0
  if #ids == max and more then claim_wake(now) end
  -- Held groups come back with no signal (claim.lua).
  if held > 0 and (out[3] == 0 or held < out[3]) then out[3] = held end
  out[#out + 1] = 'L'
  return out
end
