-- requeue.lua: move jobs from pending, retry, garbage or done to the back
-- of ready, keeping their attempts (see admin.go).
--
-- KEYS: 1 the state's sorted set, 2 ready list, 3 attempt info hash,
--       4 cancelled set, 5 done expiry zset, 6 results hash, 7 jobs hash,
--       8 config hash, 9 event stream, 10-13 workflow task set, records,
--       delivery zset and token counter (lib_wf.lua)
-- ARGV: 1 "ids" or "all", 2 from state, then for "ids" the IDs, for "all"
--       the batch size.
-- Returns how many moved. With "all" the caller repeats until fewer than
-- the batch moved.

local z = KEYS[1]
local ids
if ARGV[1] == 'all' then
  ids = redis.call('ZRANGE', z, 0, tonumber(ARGV[3]) - 1)
  if #ids > 0 then call_chunked('ZREM', z, ids, 1) end
else
  ids = {}
  for i = 3, #ARGV do
    if redis.call('ZREM', z, ARGV[i]) == 1 then ids[#ids + 1] = ARGV[i] end
  end
end
if #ids == 0 then return 0 end
local now_n = now_ms()
local now = str(now_n)
local cf = redis.call('HMGET', KEYS[8], 'ev', 'evw', 'pm', 'gm')
events_config(cf[1], cf[2])
local ev = events_on()
local kinds
if ev then kinds = kinds_of(KEYS[7], ids) end
local atts = call_chunked_flat('HMGET', KEYS[3], ids)
local h = {}
for i = 1, #ids do
  local a, c = parse_att(atts[i])
  h[#h + 1] = ids[i]
  h[#h + 1] = make_att(a, c, '', now)
  if ev then emit(11, ids[i], kinds[i], a, '') end
end
call_chunked('HSET', KEYS[3], h, 2)
if ARGV[2] == 'garbage' then call_chunked('SREM', KEYS[4], ids, 1) end
if ARGV[2] == 'done' then
  call_chunked('ZREM', KEYS[5], ids, 1)
  call_chunked('HDEL', KEYS[6], ids, 1)
end
push_ready(KEYS[2], KEYS[7], cf[3], cf[4], ids)
wake_ready()
if ARGV[2] == 'garbage' then
  local wfm = wf_members(KEYS[10], ids)
  if wfm then
    for id in pairs(wfm) do wf_note(id, 'r', '') end
    wf_flush(KEYS[11], KEYS[12], KEYS[13], now_n)
  end
end
flush_events(KEYS[9], now_n)
return #ids
