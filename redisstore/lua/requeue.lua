-- requeue.lua: move jobs from pending, retry, garbage or done to the back
-- of ready, keeping their attempts (see admin.go).
--- @include conf att events kinds ready wfends
--- @keys jobs pending retry garbage done done_exp results cancelled
--
-- ARGV: 1 "ids" or "all", 2 from state, then for "ids" the IDs, for "all"
-- the batch size.
-- Returns how many moved. With "all" the caller repeats until fewer than
-- the batch moved.

local from = ARGV[2]
local z = ({pending = K.pending, retry = K.retry, garbage = K.garbage, done = K.done})[from]
local ids
if ARGV[1] == 'all' then
  ids = rcall('ZRANGE', z, 0, tonumber(ARGV[3]) - 1)
  if #ids > 0 then call_chunked('ZREM', z, ids, 1) end
else
  ids = {}
  for i = 3, #ARGV do
    if rcall('ZREM', z, ARGV[i]) == 1 then ids[#ids + 1] = ARGV[i] end
  end
end
if #ids == 0 then return 0 end
read_fields()
local now_n = now_ms()
local now = str(now_n)
events_config()
local ev = events_on()
local kinds = ev and kinds_of(ids)
local atts = call_chunked_flat('HMGET', K.att, ids)
local h = {}
for i = 1, #ids do
  local a, c = parse_att(atts[i])
  h[#h + 1] = ids[i]
  h[#h + 1] = make_att(a, c, '', now)
  if ev then emit(11, ids[i], kinds[i], a, '') end
end
call_chunked('HSET', K.att, h, 2)
if from == 'garbage' then call_chunked('SREM', K.cancelled, ids, 1) end
if from == 'done' then
  call_chunked('ZREM', K.done_exp, ids, 1)
  call_chunked('HDEL', K.results, ids, 1)
end
ready_push(ids, false)
wake_ready()
if from == 'garbage' then
  local wfm = wf_members(ids)
  if wfm then
    for id in pairs(wfm) do wf_note(id, 'r', '') end
    wf_flush(now_n)
  end
end
flush_events(now_n)
return #ids
