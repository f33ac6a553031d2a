-- wf_taskdeps.lua: a task's dependencies with their states and, when
-- asked, their results, in one read (see workflow_deps.go).
--- @flags no-writes
--- @keys wf_meta wf_states wf_deps wf_results
--
-- ARGV: task, '1' to read results. Returns {} when the workflow is not
-- stored, {0} when it has no such task, else {its dependencies
-- ("\n"-joined, as wf_deps holds them), their fields of wf_states, their
-- results (empty when not asked)}.

if rcall('EXISTS', K.wf_meta) == 0 then return {} end
local t = ARGV[1]
if rcall('HEXISTS', K.wf_states, t) == 0 then return {0} end
local v = rcall('HGET', K.wf_deps, t) or ''
local deps = {}
for x in string.gmatch(v, '[^\n]+') do deps[#deps + 1] = x end
local res = {}
if ARGV[2] == '1' then res = call_chunked_flat('HMGET', K.wf_results, deps) end
return {v, call_chunked_flat('HMGET', K.wf_states, deps), res}
