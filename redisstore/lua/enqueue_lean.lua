-- enqueue_lean.lua: the call every app makes, one job due now into a
-- queue whose lean mark is set (lean.lua), as a plain script of its own:
-- what adds/plain.lua's early_adds does on that path, run with EVALSHA
-- where every other script runs as a function (lua.go: @eval).
--
-- Why apart: Redis 7.0 runs every function in one Lua state, and steps
-- that state's collector every 50 script calls through a heap that holds
-- every library loaded (ten times the heap of plain scripts); plain
-- scripts have a state of their own, which holds this one and little
-- else, whose collector's steps end at once. The call costs Redis about
-- 3,000 fewer instructions than as a function, less than asynq's
-- enqueue (docs/performance.md, "The lone enqueue as a plain script").
-- Its code runs whole at every call: no modules, no function defined,
-- the keys bound to locals (K_jobs, K_ready, K_lean).
--
-- ARGV: the job's ID and its value. Returns "R" (stored: the lean way's
-- "r"), "d" and the ID for a duplicate, or "~" when the lean mark is not
-- set, having done nothing: the store sends the call again to enqueue.lua
-- with every key (scripts.go: sendRefused).
--- @eval
--- @keys jobs ready lean

-- The store's clock from the mark's PTTL, as lean.lua's lean_at reads
-- it: only a PTTL that gives a time between 2020 and 2100 is taken (an
-- expiry anything else set sends the call the long way, which sets the
-- mark again); formatted with %d, which costs a fifth of tostring's
-- %.14g.
local t = rcall('PTTL', K_lean)
if t < LEAN_UNTIL - 4102444800000 or t > LEAN_UNTIL - 1577836800000 then return '~' end
local id = ARGV[1]
if rcall('HSETNX', K_jobs, id, string.format('%d', LEAN_UNTIL - t) .. ',' .. ARGV[2]) == 0 then
  return 'd' .. id
end
if rcall('RPUSH', K_ready, id) == 1 then
  -- The wake-up of base.lua's wake_ready, its prefix and queue read from
  -- the jobs key as reset_base reads them.
  local k = K_jobs
  local c, e = string.find(k, ':', 2, true), string.find(k, '}', 2, true)
  local prefix, queue = string.sub(k, 2, c - 1), string.sub(k, c + 1, e - 1)
  if not (SHARD_PUB and type(redis.pcall('SPUBLISH', prefix .. ':{' .. prefix .. ':' .. queue .. '}:ready', queue)) == 'number') then
    redis.pcall('PUBLISH', prefix .. ':ready', queue)
  end
end
return 'R'
