-- wfiwrite.lua: a workflow's entries in the index (see workflow_keys.go),
-- for wfi_set.lua and wfindex.lua.
--- @keys wfi_all wfi_running wfi_succeeded wfi_failed wfi_cancelled wfi_exp wfi_ids

-- index_write lists workflow id under state st (running, succeeded,
-- failed, cancelled) and no other, created at created ms, and in the
-- expiry set at exp ms when exp > 0 (else out of it).
local function index_write(id, st, created, exp)
  rcall('ZADD', K.wfi_all, created, id)
  if rcall('ZADD', K.wfi_ids, 0, id) == 1 then
    -- An ID new to ids is in no other set of the index: every write puts
    -- it in ids with the others, and wfi_del.lua takes it out of them all
    -- at once. A workflow's creation, the usual first write, so adds it to
    -- its state's set alone, without a ZREM from each other set.
    local key = K.wfi_running
    if st == 'succeeded' then
      key = K.wfi_succeeded
    elseif st == 'failed' then
      key = K.wfi_failed
    elseif st == 'cancelled' then
      key = K.wfi_cancelled
    end
    rcall('ZADD', key, created, id)
    if exp > 0 then rcall('ZADD', K.wfi_exp, exp, id) end
    return
  end
  local z = {running = K.wfi_running, succeeded = K.wfi_succeeded, failed = K.wfi_failed, cancelled = K.wfi_cancelled}
  for name, key in pairs(z) do
    if name == st then rcall('ZADD', key, created, id) else rcall('ZREM', key, id) end
  end
  if exp > 0 then
    rcall('ZADD', K.wfi_exp, exp, id)
  else
    rcall('ZREM', K.wfi_exp, id)
  end
end
