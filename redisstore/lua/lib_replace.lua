-- lib_replace.lua: a duplicate enqueue that changes the waiting job holding
-- the ID or unique key (store.Replace), for enqueue.lua, whose KEYS it
-- uses: 1 jobs, 2 ready, 3 pending, 7 attempt info, 8 config, 10 retry,
-- 11 unack, 12 garbage, 13 done; and due_ms of lib_place.lua, job_state
-- of lib_state.lua, the levels of lib_prio.lua.

-- replace_holder applies rep (bits: 1 args, 2 due time) to job h with the
-- new value and due argument, and returns "u", the state it is in now
-- ("p", "r" or "y") and h; or nil when h is not waiting (running, ended,
-- gone) or is a workflow task's job, which stays as it is, and then true
-- as well when h is running and rep allows adding a job (no bit 4,
-- ReplaceOnly).
local function replace_holder(h, val, due, rep, now, later)
  if string.find(h, '~', 1, true) then return nil end
  local old = redis.call('HGET', KEYS[1], h)
  if not old then return nil end
  local state = job_state(h, KEYS[3], KEYS[10], KEYS[12], KEYS[13], KEYS[11], KEYS[7])
  local st, zkey
  if state == 'pending' then
    st, zkey = 'p', KEYS[3]
  elseif state == 'retry' then
    st, zkey = 'y', KEYS[10]
  elseif state == 'ready' then
    st = 'r'
  elseif state == 'unack' then
    return nil, rep < 4
  else
    return nil -- ended: garbage or done
  end
  local prio = prio_of(old)
  if rep % 2 == 1 then
    -- The enqueue time stays the first one's.
    redis.call('HSET', KEYS[1], h, string.match(old, '^(%d*,)') .. val)
    local np = prio_of_new(val)
    if np ~= prio then
      mark_levels(KEYS[8], redis.call('HGET', KEYS[8], 'pm'), {[np] = true})
      if st == 'r' then
        -- To the back of its new level.
        redis.call('LREM', ready_at(KEYS[2], prio), -1, h)
        redis.call('RPUSH', ready_at(KEYS[2], np), h)
      end
      prio = np
    end
  end
  if math.floor(rep / 2) % 2 == 1 then
    local d = due_ms(due, now, later)
    if d > now then
      if st == 'r' then
        -- From the tail: the job most likely to be replaced is a recent one.
        redis.call('LREM', ready_at(KEYS[2], prio), -1, h)
        st, zkey = 'p', KEYS[3]
      end
      local first = earliest(zkey)
      redis.call('ZADD', zkey, str(d), h)
      if not first or d < first then wake_sched() end
    elseif st ~= 'r' then
      redis.call('ZREM', zkey, h)
      redis.call('RPUSH', ready_at(KEYS[2], prio), h)
      local a, c, t = parse_att(redis.call('HGET', KEYS[7], h))
      redis.call('HSET', KEYS[7], h, make_att(a, c, t, str(now)))
      wake_ready()
      st = 'r'
    end
  end
  return 'u' .. st .. h
end
