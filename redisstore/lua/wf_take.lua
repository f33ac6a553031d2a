-- wf_take.lua: take a queue's task-end records for delivery (see
-- workflow_deliver.go).
--- @keys wf_done wf_due
--
-- ARGV: 1 mode: "ids" (the IDs that follow), "due" (records no one has
-- delivered within their lease) or "any"; 2 lease ms; 3 limit; then for
-- "ids" the job IDs.
-- Returns job ID and record pairs; each taken record's lease starts again,
-- so a sweeper leaves it to the taker for that long.

local now = now_ms()
local ids
if ARGV[1] == 'ids' then
  ids = {}
  for a = 4, #ARGV do ids[#ids + 1] = ARGV[a] end
elseif ARGV[1] == 'due' then
  ids = rcall('ZRANGEBYSCORE', K.wf_due, '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
else
  ids = rcall('ZRANGE', K.wf_due, 0, tonumber(ARGV[3]) - 1)
end
if #ids == 0 then return {} end
local vals = call_chunked_flat('HMGET', K.wf_done, ids)
local out, z = {}, {}
local until_ms = now + tonumber(ARGV[2])
for a = 1, #ids do
  if vals[a] then
    out[#out + 1] = ids[a]
    out[#out + 1] = vals[a]
    z[#z + 1] = until_ms
    z[#z + 1] = ids[a]
  end
end
if #z > 0 then call_chunked('ZADD', K.wf_due, z, 2) end
return out
