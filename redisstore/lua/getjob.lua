-- getjob.lua: one job in whatever state it is (read-only; see jobs.go).
--- @flags no-writes
--- @include state records
--- @keys jobs progress
--
-- ARGV: 1 id
-- Returns {} when there is no such job, else {state, score, id, value,
-- attempt info, errors, result, cancelled, progress ('' for none)}. The
-- state is found by elimination (state.lua).

local id = ARGV[1]
if rcall('HEXISTS', K.jobs, id) == 0 then return {} end
local state, score = job_state(id)
local out = {state, score}
for _, v in ipairs(load({id})) do
  out[#out + 1] = v
end
out[#out + 1] = rcall('HGET', K.progress, id) or ''
return out
