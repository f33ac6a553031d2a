#!lua flags=allow-oom
-- extend.lua: push lease deadlines of one queue to now+lease (see
-- extend.go).
--
-- KEYS: 1 unack zset, 2 cancelled set
-- ARGV: 1 lease ms, then pairs id, token
-- Returns {deadlineMs, status1, status2, ...}: bit 1 the lease is held (and
-- now extended), bit 2 the job was cancelled.
--
-- Cost per call: TIME, ZMSCORE, ZADD XX, SMISMEMBER when anything is
-- cancelled; none per job.

local unack = KEYS[1]
local _, later = now_ms()
local deadline = later + tonumber(ARGV[1])
local members, ids = {}, {}
for i = 2, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
  members[#members + 1] = ARGV[i] .. '|' .. ARGV[i + 1]
end
local held = call_chunked_flat('ZMSCORE', unack, members)
local cancelled = {}
if redis.call('SCARD', KEYS[2]) > 0 then
  cancelled = call_chunked_flat('SMISMEMBER', KEYS[2], ids)
end
local out = {deadline}
local z = {}
for i = 1, #members do
  local st = 0
  if held[i] then
    st = 1
    z[#z + 1] = deadline
    z[#z + 1] = members[i]
  end
  if cancelled[i] == 1 then st = st + 2 end
  out[#out + 1] = st
end
if #z > 0 then
  -- XX: never re-adds a member that left unack.
  local i = 1
  while i <= #z do
    local j = math.min(#z, i + CHUNK - 1)
    redis.call('ZADD', unack, 'XX', unpack(z, i, j))
    i = j + 1
  end
end
return out
