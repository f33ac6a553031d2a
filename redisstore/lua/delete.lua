-- delete.lua: delete jobs of one state other than unack (see admin.go).
--
-- KEYS: 1 the state's list (ready) or sorted set, 2 jobs hash, 3 attempt
--       info hash, 4 error history hash, 5 results hash, 6 cancelled set,
--       7 unique locks hash, 8 extras hash, 9 done expiry zset, 10 config
--       hash, 11 event stream, 12 waited set, 13 progress hash, 14-17
--       workflow task set, records, delivery zset and token counter
--       (lib_wf.lua)
-- ARGV: 1 "ids" or "all", 2 state, then for "ids" the IDs, for "all" the
--       batch size.
-- Returns how many were deleted. With "all" the caller repeats until fewer
-- than the batch were deleted.

local c, state = KEYS[1], ARGV[2]
local ids = {}
if ARGV[1] == 'all' then
  local n = tonumber(ARGV[3])
  if state == 'ready' then
    -- In listing order: the priority levels, then the groups; the first
    -- n groups hold the batch unless some were emptied (named, no job),
    -- and then all are read.
    local pm = redis.call('HGET', KEYS[10], 'pm')
    local lists, groups, complete = ext().ready_lists(c, pm, n)
    while true do
      for k, l in ipairs(lists) do
        if #ids == n then break end
        local got = redis.call('LRANGE', l, 0, n - #ids - 1)
        redis.call('LTRIM', l, #got, -1)
        for i = 1, #got do ids[#ids + 1] = got[i] end
        local g = groups[k]
        if g and redis.call('LLEN', l) == 0 then redis.call('SREM', ext().gkey(c, 'gk'), g) end
      end
      if #ids == n or complete then break end
      lists, groups, complete = ext().ready_lists(c, pm)
    end
  else
    ids = redis.call('ZRANGE', c, 0, n - 1)
    if #ids > 0 then call_chunked('ZREM', c, ids, 1) end
  end
else
  for i = 3, #ARGV do
    local removed
    if state == 'ready' then
      removed = redis.call('LREM', ext().ready_list_of(c, redis.call('HGET', KEYS[2], ARGV[i])), 1, ARGV[i])
    else
      removed = redis.call('ZREM', c, ARGV[i])
    end
    if removed == 1 then ids[#ids + 1] = ARGV[i] end
  end
end
if #ids == 0 then return 0 end
local cf = redis.call('HMGET', KEYS[10], 'ev', 'evw', 'ki')
events_config(cf[1], cf[2])
if events_on() then
  local kinds = kinds_of(KEYS[2], ids)
  local atts = call_chunked_flat('HMGET', KEYS[3], ids)
  for i = 1, #ids do emit(12, ids[i], kinds[i], (parse_att(atts[i])), '') end
  flush_events(KEYS[11], now_ms())
end
local waited = waited_among(KEYS[12], ids)
if waited then
  for id in pairs(waited) do publish_end(KEYS[12], id, 'deleted', 0, '', '', '', false, 0) end
end
if redis.call('HLEN', KEYS[13]) > 0 then call_chunked('HDEL', KEYS[13], ids, 1) end
if state ~= 'done' and state ~= 'garbage' then
  local wfm = wf_members(KEYS[14], ids)
  if wfm then
    local now = now_ms()
    for id in pairs(wfm) do wf_note(id, 'd', '') end
    wf_flush(KEYS[15], KEYS[16], KEYS[17], now)
  end
end
release_unique(KEYS[7], KEYS[8], ids)
if cf[3] then kidx().drop(KEYS[2], ids) end
call_chunked('HDEL', KEYS[2], ids, 1)
call_chunked('HDEL', KEYS[3], ids, 1)
call_chunked('HDEL', KEYS[4], ids, 1)
call_chunked('HDEL', KEYS[5], ids, 1)
call_chunked('SREM', KEYS[6], ids, 1)
call_chunked('HDEL', KEYS[8], ids, 1)
if state == 'done' then call_chunked('ZREM', KEYS[9], ids, 1) end
return #ids
