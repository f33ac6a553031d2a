-- enqueue_plain.lua: add plain jobs (no unique key, tick or retention of
-- their own) to one queue: the common case, with fewer keys and arguments
-- than enqueue.lua (see enqueue.go).
--
-- KEYS: 1 jobs hash, 2 ready list, 3 pending zset, 4 config hash, 5 event
--       stream
-- ARGV: triples per job: id, value (the envelope, which this script
--       prefixes with the enqueue time), due ("" now, "+ms" after now or
--       absolute "ms").
-- Returns one string per job: "r" (ready), "p" (pending), or "d" followed
-- by the ID for a duplicate.
--
-- Cost: one job takes one HSETNX (the duplicate check and the insert);
-- a batch one HMGET and one HSET; then TIME, one RPUSH and/or ZADD, and the
-- wake signal only when ready was empty; with events, one HMGET of the
-- config and one XADD.

local jobs = KEYS[1]
local now, later = now_ms()
events_config(unpack(redis.call('HMGET', KEYS[4], 'ev', 'evw')))
local ev = events_on()
local nows = str(now) .. ','
local out = {}
if #ARGV == 3 then
  local id = ARGV[1]
  if redis.call('HSETNX', jobs, id, nows .. ARGV[2]) == 0 then
    out[1] = 'd' .. id
  else
    out[1] = place(id, ARGV[3], now, later)
    if ev then emit(1, id, kind_of_new(ARGV[2]), 0, out[1]) end
  end
else
  local ids = {}
  for i = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
  local exist = call_chunked_flat('HMGET', jobs, ids)
  local seen, h = {}, {}
  for k = 1, #ids do
    local id = ids[k]
    if exist[k] or seen[id] then
      out[k] = 'd' .. id -- already there, or earlier in this batch
    else
      seen[id] = true
      h[#h + 1] = id
      h[#h + 1] = nows .. ARGV[3 * k - 1]
      out[k] = place(id, ARGV[3 * k], now, later)
      if ev then emit(1, id, kind_of_new(ARGV[3 * k - 1]), 0, out[k]) end
    end
  end
  if #h > 0 then call_chunked('HSET', jobs, h, 2) end
end
store_placed(KEYS[2], KEYS[3])
flush_events(KEYS[5], now)
return out
