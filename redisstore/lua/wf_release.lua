-- wf_release.lua: enqueue released workflow tasks into one queue (see
-- workflow_deliver.go).
--
-- KEYS: 1 jobs hash, 2 ready list, 3 pending zset, 4 config hash, 5 event
--       stream, 6 the queue's workflow task set (lib_wf.lua's wm),
--       7 garbage zset, 8 done zset, 9 done expiry zset, 10 attempt info
--       hash, 11 error history hash, 12 results hash, 13 cancelled set,
--       14 extras hash, 15 progress hash
-- ARGV: triples: job ID, due ("" now, "+ms" after now, or absolute ms),
--       value (the envelope, which this script prefixes with the enqueue
--       time).
-- Returns one string per job: "r" (ready), "p" (pending) or "d" (released
-- before: the task set holds it, whether or not its job is still here, so
-- a task's job is enqueued at most once).
--
-- A job that holds the ID without the mark is another's: one left by an
-- earlier workflow of the same ID, removed since. When it has finished
-- (done or garbage) it is replaced; when it still waits or runs, it
-- becomes the task's job.

local now, later = now_ms()
events_config(unpack(redis.call('HMGET', KEYS[4], 'ev', 'evw')))
local nows = str(now) .. ','
local ids = {}
for a = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[a] end
local marked = call_chunked_flat('SMISMEMBER', KEYS[6], ids)
local held = call_chunked_flat('HMGET', KEYS[1], ids)
local out, mark, vals = {}, {}, {}
for k = 1, #ids do
  local id, due, val = ids[k], ARGV[3 * k - 1], ARGV[3 * k]
  if marked[k] == 1 then
    out[k] = 'd'
  else
    mark[#mark + 1] = id
    local fresh = not held[k]
    if not fresh and (redis.call('ZREM', KEYS[7], id) == 1 or redis.call('ZREM', KEYS[8], id) == 1) then
      -- A finished job of an earlier workflow: replace it.
      redis.call('ZREM', KEYS[9], id)
      redis.call('HDEL', KEYS[10], id)
      redis.call('HDEL', KEYS[11], id)
      redis.call('HDEL', KEYS[12], id)
      redis.call('SREM', KEYS[13], id)
      redis.call('HDEL', KEYS[14], id)
      redis.call('HDEL', KEYS[15], id)
      fresh = true
    end
    if fresh then
      vals[#vals + 1] = id
      vals[#vals + 1] = nows .. val
      local res = place(id, due, now, later)
      emit(1, id, kind_of_new(val), 0, res)
      out[k] = res
    else
      out[k] = 'a' -- adopted
    end
  end
end
if #mark > 0 then call_chunked('SADD', KEYS[6], mark, 1) end
if #vals > 0 then call_chunked('HSET', KEYS[1], vals, 2) end
store_placed(KEYS[2], KEYS[3])
flush_events(KEYS[5], now)
return out
