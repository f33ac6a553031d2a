-- lib_replace.lua: a duplicate enqueue that changes the waiting job holding
-- the ID or unique key (store.Replace), for enqueue.lua, whose KEYS it
-- uses: 1 jobs, 2 ready, 3 pending, 7 attempt info, 8 config, 10 retry,
-- 11 unack, 12 garbage, 13 done; and due_ms of lib_place.lua, job_state
-- of lib_state.lua, the levels of lib_prio.lua, lib_kidx.lua.

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
  local cur = old -- the stored value, which says the job's ready list
  if rep % 2 == 1 then
    -- The enqueue time stays the first one's.
    local enq = string.match(old, '^(%d*,)')
    cur = enq .. val
    local nk = kind_of_new(val)
    if kidx_on and kind_of(old) ~= nk then
      kidx().drop(KEYS[1], {h})
      kidx().add(KEYS[1], {h}, 1, nk, tonumber(string.sub(enq, 1, -2)) or now)
    end
    redis.call('HSET', KEYS[1], h, cur)
    local np, ng = ext().prio_of_new(val), ext().group_of_new(val)
    if np ~= ext().prio_of(old) or ng ~= ext().group_of(old) then
      local cf = redis.call('HMGET', KEYS[8], 'pm', 'gm')
      local pm = ext().mark_levels(KEYS[8], cf[1], {[np] = true})
      if ng then ext().groups_on(KEYS[2], KEYS[8], cf[2], cf[1]) end
      if st == 'r' then
        -- To the back of its new level or group.
        redis.call('LREM', ext().ready_list_of(KEYS[2], old), -1, h)
        push_ready(KEYS[2], KEYS[1], pm, cf[2] or ng, {h})
      end
    end
  end
  if math.floor(rep / 2) % 2 == 1 then
    local d = due_ms(due, now, later)
    if d > now then
      if st == 'r' then
        -- From the tail: the job most likely to be replaced is a recent one.
        redis.call('LREM', ext().ready_list_of(KEYS[2], cur), -1, h)
        st, zkey = 'p', KEYS[3]
      end
      local first = earliest(zkey)
      redis.call('ZADD', zkey, str(d), h)
      if not first or d < first then wake_sched() end
    elseif st ~= 'r' then
      redis.call('ZREM', zkey, h)
      local cf = redis.call('HMGET', KEYS[8], 'pm', 'gm')
      push_ready(KEYS[2], KEYS[1], cf[1], cf[2], {h})
      local a, c, t = parse_att(redis.call('HGET', KEYS[7], h))
      redis.call('HSET', KEYS[7], h, make_att(a, c, t, str(now)))
      wake_ready()
      st = 'r'
    end
  end
  return 'u' .. st .. h
end
