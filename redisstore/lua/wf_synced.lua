-- wf_synced.lua: remember that the index shows the workflow in state
-- ARGV[1], when it still is in it (see workflow_deliver.go's syncIndex).
--- @keys wf_meta
--
-- Returns 0 when it is; else the workflow's state, created ms, ended ms
-- and retention ms (as wfgraph/flow.lua's reply), which the caller writes
-- to the index in turn, since another process may have moved the
-- workflow on and indexed it before this index write, which came late;
-- or 'gone' when the workflow no longer exists.

local m = rcall('HMGET', K.wf_meta, 'st', 'cr', 'en', 'ret')
if not m[1] then return 'gone' end
if m[1] == ARGV[1] then
  rcall('HSET', K.wf_meta, 'ist', ARGV[1])
  return 0
end
return {m[1], m[2] or '0', m[3] or '0', m[4] or '0'}
