-- queues_register.lua: register the queues a store enqueues to for the
-- first time since it started (partition_learn.go), and tell it those
-- that another process declared partitioned since it read the partition
-- counts: one script, so that no declaration comes between the look and
-- the registration (parts_declare.lua).
--- @keys queues parts
--
-- ARGV: the queue names.
-- Returns per name its partition count, or 0 when the name is now
-- registered.

local counts = rcall('HMGET', K.parts, unpack(ARGV))
local out, add = {}, {}
for i = 1, #ARGV do
  local n = tonumber(counts[i]) or 0
  if n > 1 then
    out[i] = n
  else
    out[i] = 0
    add[#add + 1] = ARGV[i]
  end
end
if #add > 0 then call_chunked('SADD', K.queues, add, 1) end
return out
