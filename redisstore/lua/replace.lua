-- replace.lua: a duplicate enqueue that changes the waiting job holding
-- the ID or unique key (store.Replace), for adds/extras.lua.
--- @include state place ready kidx kinds mpack
--- @keys jobs pending retry att

-- route_of returns what a stored value says of the list its job waits in
-- when ready: the text after its max retries ("p2", "gtenant", "").
local function route_of(v)
  return string.match(v, '^%d+,%d+([^,]*),') or ''
end

-- kept_unique returns val, the client's part of the value of a job that
-- replaces job h, with the unique key and UniqueFor of old, h's stored
-- value: a replaced job keeps its own (store.Replace). The envelope's
-- fifth element is the unique key; its seventh, when there, the map of
-- the other options, UniqueFor's under the key UNIQUE_FOR_KEY. A value
-- that is not what hopper writes is left as sent.
local function kept_unique(old, val)
  local c1 = string.find(old, ',', 1, true)
  local po = c1 and string.find(old, ',', c1 + 1, true)
  local pn = string.find(val, ',', 1, true)
  local a = po and mp_items(old, po + 1)
  local b = pn and mp_items(val, pn + 1)
  if not a or not b or #a < 7 or #b < 7 then return val end
  local uf = string.char(0xa0 + #UNIQUE_FOR_KEY) .. UNIQUE_FOR_KEY
  -- The options: the new job's but its UniqueFor, and old's UniqueFor.
  local opts = {}
  local function take(s, at, i, keep_uf)
    local m = at[i] and i < #at and mp_items(s, at[i])
    if not m then return end
    for k = 1, #m - 1, 2 do
      local key = string.sub(s, m[k], m[k + 1] - 1)
      if (key == uf) == keep_uf then opts[#opts + 1] = string.sub(s, m[k], m[k + 2] - 1) end
    end
  end
  take(val, b, 7, false)
  take(old, a, 7, true)
  local n = #b - 1
  local out = {string.sub(val, 1, pn), '', string.sub(val, b[1], b[5] - 1), string.sub(old, a[5], a[6] - 1),
    string.sub(val, b[6], b[7] - 1)}
  if #opts > 0 or n > 7 then
    out[#out + 1] = mp_header(#opts, true) .. table.concat(opts)
    if n > 7 then out[#out + 1] = string.sub(val, b[8], b[#b] - 1) end
    n = math.max(n, 7)
  else
    n = 6
  end
  out[2] = mp_header(n)
  return table.concat(out)
end

-- replace_args makes job h (stored value old, in state st) the new value
-- val, its enqueue time kept, and moves it to the list its new value
-- says when it is ready. It returns the new stored value.
local function replace_args(h, old, st, val)
  local enq = string.match(old, '^(%d*,)')
  local cur = enq .. kept_unique(old, val)
  if kind_of(old) ~= kind_of(cur) then
    index_drop({h}, {old})
    index_add({h}, 1, kind_of(cur), string.sub(enq, 1, -2))
  end
  rcall('HSET', K.jobs, h, cur)
  ready_note({cur})
  if st == 'r' and route_of(cur) ~= route_of(old) then
    -- To the back of its new level or group.
    ready_remove(h, old)
    ready_push({h}, false, {cur})
  end
  return cur
end

-- replace_due moves job h (stored value cur, in state st, zset zkey) to
-- its new due argument, and returns its state letter now.
local function replace_due(h, cur, st, zkey, due, now)
  local score, at = due_later(due)
  if score then
    if st == 'r' then
      ready_remove(h, cur)
      st, zkey = 'p', K.pending
    end
    local first = earliest(zkey)
    rcall('ZADD', zkey, score, h)
    if not first or at < first then wake_sched() end
  elseif st ~= 'r' then
    rcall('ZREM', zkey, h)
    ready_push({h}, false, {cur})
    -- Moved on: no claim's end left it here (ends.lua: lost).
    local a, c = parse_att(rcall('HGET', K.att, h))
    rcall('HSET', K.att, h, make_att(a, c, '', str(now)))
    wake_ready()
    st = 'r'
  end
  return st
end

-- replace_holder applies rep (bits: 1 args, 2 due time) to job h with the
-- new value and due argument, and returns "u", the state it is in now
-- ("p", "r" or "y") and h; or nil when h is not waiting (running, ended,
-- gone) or is a workflow task's job, which stays as it is, and then true
-- as well when h is running and rep allows adding a job (no bit 4,
-- ReplaceOnly).
local function replace_holder(h, val, due, rep, now)
  if string.find(h, '~', 1, true) then return nil end
  local old = rcall('HGET', K.jobs, h)
  if not old then return nil end
  local state = job_state(h)
  local st, zkey
  if state == 'pending' then
    st, zkey = 'p', K.pending
  elseif state == 'retry' then
    st, zkey = 'y', K.retry
  elseif state == 'ready' then
    st = 'r'
  elseif state == 'unack' then
    return nil, rep < 4
  else
    return nil -- ended: garbage or done
  end
  local cur = old
  if rep % 2 == 1 then cur = replace_args(h, old, st, val) end
  if math.floor(rep / 2) % 2 == 1 then st = replace_due(h, cur, st, zkey, due, now) end
  return 'u' .. st .. h
end
