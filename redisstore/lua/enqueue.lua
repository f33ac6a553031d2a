-- enqueue.lua: add jobs to one queue (see enqueue.go).
--
-- KEYS: 1 jobs hash, 2 ready list, 3 pending zset, 4 unique locks hash,
--       5 extras hash, 6 periodic ticks hash, 7 attempt info hash,
--       8 config hash, 9 event stream, 10 retry zset, 11 unack zset,
--       12 garbage zset, 13 done zset (the last four to find the state of
--       a job to replace, lib_replace.lua)
-- ARGV: groups of four per job: id, value (the envelope, which this script
--       prefixes with the enqueue time), due ("" now, "+ms" after now or
--       absolute "ms"), extra ("", or "1", or "r" and the store.Replace
--       flags); after a non-empty extra four more: unique lock field (""
--       for none), unique hold in ms (0 = until finished), schedule name
--       ("" for none), tick in ms.
-- Returns one string per job: "r" (ready), "p" (pending), "d" followed
-- by the holder's ID for a duplicate ("d" alone for a skipped tick), or
-- "u", the holder's state now and its ID for a duplicate that replaced
-- what the holder waits with. With a Replace flag, a unique key held by a
-- running job passes to the new job, which is added.
--
-- Batches of plain jobs go to enqueue_plain.lua instead. Here a plain job
-- costs one HSETNX and one with a unique key or tick a few calls
-- of its own; per call: TIME, one RPUSH and/or ZADD, and the wake-up
-- only when ready was empty.

local jobs = KEYS[1]
local now, later = now_ms()
local cf = redis.call('HMGET', KEYS[8], 'ev', 'evw', 'gm', 'ki')
kidx_on = cf[4] ~= false
events_config(cf[1], cf[2])
local nows = ms_str(now) .. ','
local out = {}
local i = 1
while i <= #ARGV do
  local id, val, due, extra = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  i = i + 4
  local res
  if extra == '' then
    if redis.call('HSETNX', jobs, id, nows .. val) == 0 then res = 'd' .. id end
  else
    local ufield, ufor, sched, tick = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
    i = i + 4
    local holder
    if redis.call('HEXISTS', jobs, id) == 1 then
      holder = id
    end
    if not holder and ufield ~= '' then
      local h = redis.call('HGET', KEYS[4], ufield)
      if h then
        local hid, untl = string.match(h, '^(.*),(%d*)$')
        if untl == '' or tonumber(untl) > now then holder = hid end
      end
    end
    local rep = 0
    if string.byte(extra, 1) == 114 then rep = tonumber(string.sub(extra, 2)) end
    if holder then
      local running = false
      if rep > 0 then
        res, running = replace_holder(holder, val, due, rep, now, later)
      end
      -- A unique key held by a running job passes to the new job, which
      -- is added: the running one cannot take what it asked for.
      if not (running and holder ~= id) then res = res or ('d' .. holder) end
    end
    -- ReplaceOnly (bit 4) never adds a job.
    if not res and rep >= 4 then res = 'd' .. id end
    if not res and sched ~= '' then
      local last = redis.call('HGET', KEYS[6], sched)
      if last and tonumber(tick) <= tonumber(last) then res = 'd' end
    end
    if not res then
      redis.call('HSET', jobs, id, nows .. val)
      if ufield ~= '' then
        redis.call('HSET', KEYS[5], id, ',' .. ufield)
      end
      if sched ~= '' then redis.call('HSET', KEYS[6], sched, tick) end
      if ufield ~= '' then
        local untl = ''
        if tonumber(ufor) > 0 then untl = str(later + tonumber(ufor)) end
        redis.call('HSET', KEYS[4], ufield, id .. ',' .. untl)
      end
    end
  end
  if not res then
    -- Only a job with extras can have a priority (enqueue.go).
    if extra ~= '' then
      res = place(id, due, now, later, ext().prio_of_new(val), ext().group_of_new(val))
    else
      res = place(id, due, now, later)
    end
    if res == 'r' and extra ~= '' and due ~= '' and string.byte(due, 1) ~= 43 then
      -- Already due at an explicit time (a periodic tick): remember when it
      -- fell due, as a promotion would.
      redis.call('HSET', KEYS[7], id, make_att(0, '', '', due))
    end
    emit(1, id, kind_of_new(val), 0, res)
    if kidx_on then kidx().add(jobs, {id}, 1, kind_of_new(val), now) end
  end
  out[#out + 1] = res
end
store_placed(KEYS[2], KEYS[3], KEYS[8], cf[3])
flush_events(KEYS[9], now)
return out
