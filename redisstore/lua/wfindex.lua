-- wfindex.lua: a workflow's state written to the index in the step that
-- changed it, for the scripts that reach every key (on one server: see
-- workflow.go).
--- @include wfgraph/state
--- @keys wfi_all wfi_running wfi_succeeded wfi_failed wfi_cancelled wfi_exp wfi_ids

-- wf_index writes the state of workflow wf (the one open: WM) to the
-- index, wfi_set.lua's work and then wf_synced.lua's, when it is not the
-- state the index shows (WM.ist).
local function wf_index(wf)
  local st = WM.st
  if not st or st == WM.ist then return end
  local m = redis.call('HMGET', WK.m, 'cr', 'en', 'ret')
  redis.call('ZADD', K.wfi_all, m[1], wf)
  redis.call('ZADD', K.wfi_ids, 0, wf)
  local z = {running = K.wfi_running, succeeded = K.wfi_succeeded, failed = K.wfi_failed, cancelled = K.wfi_cancelled}
  for name, key in pairs(z) do
    if name == st then redis.call('ZADD', key, m[1], wf) else redis.call('ZREM', key, wf) end
  end
  if st ~= 'running' then
    redis.call('ZADD', K.wfi_exp, (tonumber(m[2]) or 0) + (tonumber(m[3]) or 0), wf)
  else
    redis.call('ZREM', K.wfi_exp, wf)
  end
  redis.call('HSET', WK.m, 'ist', st)
  WM.ist = st
end
