-- enqueue_plain.lua: add plain jobs (no unique key, tick, priority, group
-- or retention of their own) to one queue: the common case, with fewer
-- keys and arguments than enqueue.lua (see enqueue.go).
--
-- KEYS: 1 jobs hash, 2 ready list, 3 pending zset, 4 config hash, 5 event
--       stream
-- ARGV: 1 the kind of every job ("" when they differ: the script reads
--       each job's from its value), 2 "n" when every job is due now, has
--       an ID no other job of the call has, and 1 is not "" (else ""),
--       then triples per job: id, value (the envelope, which this script
--       prefixes with the enqueue time), due ("" now, "+ms" after now or
--       absolute "ms").
-- Returns one string per job: "r" (ready), "p" (pending), or "d" followed
-- by the ID for a duplicate.
--
-- Cost: one job takes one HSETNX (the duplicate check and the insert);
-- a batch one HMGET and one HSET; then TIME, one RPUSH and/or ZADD, and the
-- wake signal only when ready was empty; with events, one HMGET of the
-- config and one XADD; with the kind index (lib_kidx.lua) one ZADD per
-- kind.
--
-- A call flagged "n" in a queue without groups or kind index (what every
-- Enqueue of jobs due now sends) takes a path of its own, written out:
-- here a Lua function call, table or number conversion costs about a
-- thousand instructions or more, a good share of the whole call.

local jobs = KEYS[1]
local cf = redis.call('HMGET', KEYS[4], 'ev', 'evw', 'gm', 'ki')
events_config(cf[1], cf[2])
if ARGV[2] == 'n' and not cf[3] and not cf[4] then
  local nows = now_str()
  local kind, ids, out, m = ARGV[1], nil, nil, 1
  if #ARGV == 5 then
    local id = ARGV[3]
    if redis.call('HSETNX', jobs, id, nows .. ',' .. ARGV[4]) == 0 then return {'d' .. id} end
    if redis.call('RPUSH', KEYS[2], id) == 1 then wake_ready() end
    ids, out = id, {'r'}
  else
    local all, n = {}, 0
    for i = 3, #ARGV, 3 do
      n = n + 1
      all[n] = ARGV[i]
    end
    local exist = call_chunked_flat('HMGET', jobs, all)
    local h, ready, pre = {}, {}, nows .. ','
    out, m = {}, 0
    for k = 1, n do
      local id = all[k]
      if exist[k] then
        out[k] = 'd' .. id
      else
        m = m + 1
        ready[m] = id
        h[2 * m - 1], h[2 * m] = id, pre .. ARGV[3 * k + 1]
        out[k] = 'r'
      end
    end
    if m == 0 then return out end
    call_chunked('HSET', jobs, h, 2)
    if call_chunked('RPUSH', KEYS[2], ready, 1) == m then wake_ready() end
    ids = m == 1 and ready[1] or table.concat(ready, '\n')
  end
  if ev_maxlen >= 0 then
    redis.call('XADD', KEYS[5], 'MAXLEN', '~', ev_maxlen_s, '1-*', 't', nows, 'i', ids, 'y', '1', 'k', kind, 'a', '0', 'd', 'r')
    if ev_watch and ev_watch > tonumber(nows) then
      redis.call('PUBLISH', PREFIX .. ':ev', QUEUE)
    end
  end
  return out
end
local now, later = now_ms()
local ev = events_on()
local nows = ms_str(now) .. ','
local out = {}
local common = ARGV[1]
local ids, dups = {}, 0
if #ARGV == 5 then
  local id = ARGV[3]
  ids[1] = id
  if redis.call('HSETNX', jobs, id, nows .. ARGV[4]) == 0 then
    out[1] = 'd' .. id
    dups = 1
  else
    out[1] = place(id, ARGV[5], now, later)
  end
else
  for i = 3, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
  local exist = call_chunked_flat('HMGET', jobs, ids)
  local seen, h = {}, {}
  for k = 1, #ids do
    local id = ids[k]
    if exist[k] or seen[id] then
      out[k] = 'd' .. id -- already there, or earlier in this batch
      dups = dups + 1
    else
      seen[id] = true
      h[#h + 1] = id
      h[#h + 1] = nows .. ARGV[3 * k + 1]
      out[k] = place(id, ARGV[3 * k + 2], now, later)
    end
  end
  if #h > 0 then call_chunked('HSET', jobs, h, 2) end
end
store_placed(KEYS[2], KEYS[3], KEYS[4], cf[3])
if cf[4] then
  -- The kind index (lib_kidx.lua): the jobs added.
  local kids, kkinds, n = {}, {}, 0
  for k = 1, #ids do
    if string.byte(out[k], 1) ~= 100 then -- not 'd'
      n = n + 1
      kids[n] = ids[k]
      kkinds[n] = common ~= '' and common or kind_of_new(ARGV[3 * k + 1])
    end
  end
  kidx().add(jobs, kids, n, kkinds, now)
end
if ev then
  -- The events of the jobs added, their states ('r' or 'p') the detail.
  -- Without duplicates (the usual call) the tables at hand are the
  -- columns.
  local kinds = common
  if dups == 0 then
    if common == '' then
      kinds = {}
      for k = 1, #ids do kinds[k] = kind_of_new(ARGV[3 * k + 1]) end
    end
    emit_many(1, ids, #ids, kinds, 0, out)
  else
    local evids, evkinds, evstates, n = {}, {}, {}, 0
    for k = 1, #ids do
      if string.byte(out[k], 1) ~= 100 then -- not 'd'
        n = n + 1
        evids[n], evstates[n] = ids[k], out[k]
        evkinds[n] = common ~= '' and common or kind_of_new(ARGV[3 * k + 1])
      end
    end
    emit_many(1, evids, n, evkinds, 0, evstates)
  end
end
flush_events(KEYS[5], now)
return out
