-- getjob.lua: one job in whatever state it is (read-only; see jobs.go).
--
-- KEYS: 1 jobs hash, 2 pending zset, 3 retry zset, 4 garbage zset, 5 done
--       zset, 6 unack zset, 7 attempt info hash, 8 error history hash,
--       9 results hash, 10 cancelled set, 11 progress hash
-- ARGV: 1 id
-- Returns {} when there is no such job, else {state, score, id, value,
-- attempt info, errors, result, cancelled, progress ('' for none)}. The
-- state is found by elimination (lib_state.lua).

local id = ARGV[1]
if redis.call('HEXISTS', KEYS[1], id) == 0 then return {} end
local state, score = job_state(id, KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
local out = {state, score}
for _, v in ipairs(load({id}, KEYS[1], KEYS[7], KEYS[8], KEYS[9], KEYS[10])) do
  out[#out + 1] = v
end
out[#out + 1] = redis.call('HGET', KEYS[11], id) or ''
return out
