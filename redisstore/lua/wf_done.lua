-- wf_done.lua: drop delivered task-end records (see workflow_deliver.go).
--- @keys wf_done wf_due
--
-- ARGV: pairs of job ID and the seq delivered; a record replaced by a
-- newer end of the same job since is kept.

local ids = {}
for a = 1, #ARGV, 2 do ids[#ids + 1] = ARGV[a] end
local vals = call_chunked_flat('HMGET', K.wf_done, ids)
local drop = {}
for k = 1, #ids do
  local v = vals[k]
  if v and string.match(v, '^(%d+),') == ARGV[2 * k] then drop[#drop + 1] = ids[k] end
end
if #drop > 0 then
  call_chunked('HDEL', K.wf_done, drop, 1)
  call_chunked('ZREM', K.wf_due, drop, 1)
end
return #drop
