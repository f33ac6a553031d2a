-- delete.lua: delete jobs of one state other than unack (see admin.go).
--- @flags allow-oom
--- @include conf att events kinds waiters unique ready kidx wfends forget
--- @keys jobs pending retry garbage done done_exp errs results cancelled extras progress
--
-- ARGV: 1 "ids" or "all", 2 state, then for "ids" the IDs, for "all" the
-- batch size.
-- Returns how many were deleted. With "all" the caller repeats until fewer
-- than the batch were deleted.

read_fields()
local state = ARGV[2]
local z = ({pending = K.pending, retry = K.retry, garbage = K.garbage, done = K.done})[state]
local ids = {}
if ARGV[1] == 'all' then
  local n = tonumber(ARGV[3])
  if state == 'ready' then
    ids = ready_take(n)
  else
    ids = rcall('ZRANGE', z, 0, n - 1)
    if #ids > 0 then call_chunked('ZREM', z, ids, 1) end
  end
else
  for i = 3, #ARGV do
    local removed
    if state == 'ready' then
      removed = ready_remove(ARGV[i], rcall('HGET', K.jobs, ARGV[i]))
    else
      removed = rcall('ZREM', z, ARGV[i])
    end
    if removed == 1 then ids[#ids + 1] = ARGV[i] end
  end
end
if #ids == 0 then return 0 end
events_config()
if events_on() then
  local kinds = kinds_of(ids)
  local atts = call_chunked_flat('HMGET', K.att, ids)
  for i = 1, #ids do emit(12, ids[i], kinds[i], (parse_att(atts[i])), '') end
  flush_events(now_ms())
end
local waited = waited_among(ids)
if waited then
  for id in pairs(waited) do publish_end(id, 'deleted', 0, '', '', '', false, 0) end
end
if state ~= 'done' and state ~= 'garbage' then
  local wfm = wf_members(ids)
  if wfm then
    for id in pairs(wfm) do wf_note(id, 'd', '') end
    wf_flush(now_ms())
  end
end
release_unique(ids)
purge(ids)
if state == 'done' then call_chunked('ZREM', K.done_exp, ids, 1) end
return #ids
