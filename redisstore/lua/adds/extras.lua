-- adds/extras.lua: how enqueue.lua adds jobs when one has a unique key, a
-- periodic tick, a Replace or an explicit RunAt (the slot's contract is
-- in adds/plain.lua).
--
-- ARGV after the first two: groups of four per job: id, value (the
-- envelope, which the script prefixes with the enqueue time), due ("" now,
-- "+ms" after now or absolute "ms"), extra ("", or "1", or "r" and the
-- store.Replace flags); after a non-empty extra four more: unique lock
-- field ("" for none), unique hold in ms (0 = until finished), schedule
-- name ("" for none), tick in ms. With a Replace flag, a unique key held
-- by a running job passes to the new job, which is added. A plain job
-- costs one HSETNX, one with extras a few calls of its own.
--- @include place unique replace att
--- @keys jobs ticks

-- add_extra adds job id with extras, unless its ID or unique key is held
-- (then it may replace what the holder waits with) or its tick is not
-- new. It returns the job's result, or nil when it was stored.
local function add_extra(id, val, due, extra, a, now, later, nows)
  local ufield, ufor, sched, tick = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local holder
  if rcall('HEXISTS', K.jobs, id) == 1 then holder = id end
  if not holder and ufield ~= '' then holder = unique_holder(ufield, now) end
  local rep, res = 0, nil
  if string.byte(extra, 1) == 114 then rep = tonumber(string.sub(extra, 2)) end
  if holder then
    local running = false
    if rep > 0 then res, running = replace_holder(holder, val, due, rep, now) end
    -- A unique key held by a running job passes to the new job, which is
    -- added: the running one cannot take what it asked for.
    if not (running and holder ~= id) then res = res or ('d' .. holder) end
  end
  -- ReplaceOnly (bit 4) never adds a job.
  if not res and rep >= 4 then res = 'd' .. id end
  if not res and sched ~= '' then
    local last = rcall('HGET', K.ticks, sched)
    if last and tonumber(tick) <= tonumber(last) then res = 'd' end
  end
  if res then return res end
  rcall('HSET', K.jobs, id, nows .. val)
  if sched ~= '' then rcall('HSET', K.ticks, sched, tick) end
  if ufield ~= '' then
    local untl = ''
    if tonumber(ufor) > 0 then untl = str(later + tonumber(ufor)) end
    unique_take(id, ufield, untl)
  end
  return nil
end

local function adds_all(now, later)
  local nows = ms_str(now) .. ','
  local out, ids, vals = {}, {}, {}
  local i = 3
  while i <= #ARGV do
    local id, val, due, extra = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
    i = i + 4
    ids[#ids + 1], vals[#vals + 1] = id, val
    local res
    if extra == '' then
      if rcall('HSETNX', K.jobs, id, nows .. val) == 0 then res = 'd' .. id end
    else
      res = add_extra(id, val, due, extra, i, now, later, nows)
      i = i + 4
    end
    if not res then
      res = place(id, due, nows .. val)
      if res == 'r' and extra ~= '' and due ~= '' and string.byte(due, 1) ~= 43 then
        -- Already due at an explicit time (a periodic tick): remember when
        -- it fell due, as a promotion would.
        rcall('HSET', K.att, id, make_att(0, '', '', score_ms(due)))
      end
    end
    out[#out + 1] = res
  end
  return out, ids, vals
end
