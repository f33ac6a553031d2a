-- wf_get.lua: read a whole workflow (see workflow_admin.go).
--- @flags no-writes
--- @keys wf_meta wf_states wf_info wf_deps
--
-- Returns {} when it is not stored, else the HGETALL replies of its meta,
-- states, infos and dependencies.

if rcall('EXISTS', K.wf_meta) == 0 then return {} end
return {rcall('HGETALL', K.wf_meta), rcall('HGETALL', K.wf_states), rcall('HGETALL', K.wf_info),
  rcall('HGETALL', K.wf_deps)}
