-- adds/plain.lua: how enqueue.lua adds plain jobs (no unique key, tick,
-- Replace or explicit RunAt: enqueue.go decides). The contract of the
-- adds slot:
--
--   adds_all(now, later) -> out, ids, values
--                 store the call's jobs: one result per job (see
--                 enqueue.lua), their IDs and the values sent
--   adds_fast     nil, or the whole call when every job is due now in a
--                 plain queue (enqueue.lua says when)
--
-- ARGV after the first two: triples per job, id, value (the envelope,
-- which the script prefixes with the enqueue time), due ("" now, "+ms"
-- after now or absolute "ms"). One job costs one HSETNX (the duplicate
-- check and the insert); a batch one HMGET and one HSET.
--- @include place events
--- @keys jobs ready

-- adds_fast is the path of every Enqueue of jobs due now into a plain
-- queue, written out: a Lua function call, table or number conversion
-- costs about a thousand instructions or more here, a good share of the
-- whole call. ARGV[1] is the jobs' kind.
local function adds_fast()
  local nows = now_str()
  local kind, ids, out = ARGV[1], nil, nil
  if #ARGV == 5 then
    local id = ARGV[3]
    if redis.call('HSETNX', K.jobs, id, nows .. ',' .. ARGV[4]) == 0 then return {'d' .. id} end
    if redis.call('RPUSH', K.ready, id) == 1 then wake_ready() end
    ids, out = id, {'r'}
  else
    local all, n = {}, 0
    for i = 3, #ARGV, 3 do
      n = n + 1
      all[n] = ARGV[i]
    end
    local exist = call_chunked_flat('HMGET', K.jobs, all)
    local h, ready, pre, m = {}, {}, nows .. ',', 0
    out = {}
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
    call_chunked('HSET', K.jobs, h, 2)
    if call_chunked('RPUSH', K.ready, ready, 1) == m then wake_ready() end
    ids = m == 1 and ready[1] or table.concat(ready, '\n')
  end
  emit_ready(nows, ids, kind)
  return out
end

local function adds_all(now, later)
  local nows = ms_str(now) .. ','
  local out, ids, vals = {}, {}, {}
  if #ARGV == 5 then
    local id = ARGV[3]
    ids[1], vals[1] = id, ARGV[4]
    local v = nows .. ARGV[4]
    if redis.call('HSETNX', K.jobs, id, v) == 0 then
      out[1] = 'd' .. id
    else
      out[1] = place(id, ARGV[5], now, later, v)
    end
    return out, ids, vals
  end
  for i = 3, #ARGV, 3 do ids[#ids + 1], vals[#vals + 1] = ARGV[i], ARGV[i + 1] end
  local exist = call_chunked_flat('HMGET', K.jobs, ids)
  local seen, h = {}, {}
  for k = 1, #ids do
    local id = ids[k]
    if exist[k] or seen[id] then
      out[k] = 'd' .. id -- already there, or earlier in this batch
    else
      seen[id] = true
      local v = nows .. vals[k]
      h[#h + 1] = id
      h[#h + 1] = v
      out[k] = place(id, ARGV[3 * k + 2], now, later, v)
    end
  end
  if #h > 0 then call_chunked('HSET', K.jobs, h, 2) end
  return out, ids, vals
end
