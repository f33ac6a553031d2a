-- wfindex.lua: a workflow's state written to the index in the step that
-- changed it, for the scripts that reach every key (on one server: see
-- workflow.go).
--- @include wfgraph/state wfiwrite

-- wf_index writes the state of workflow wf (the one open: WM) to the
-- index, wfi_set.lua's work and then wf_synced.lua's, when it is not the
-- state the index shows (WM.ist).
local function wf_index(wf)
  local st = WM.st
  if not st or st == WM.ist then return end
  local m = rcall('HMGET', WK.m, 'cr', 'en', 'ret')
  local exp = 0
  if st ~= 'running' then exp = (tonumber(m[2]) or 0) + (tonumber(m[3]) or 0) end
  index_write(wf, st, m[1], exp)
  rcall('HSET', WK.m, 'ist', st)
  WM.ist = st
end
