-- adds/plain.lua: how enqueue.lua adds plain jobs (no unique key, tick,
-- Replace or explicit RunAt: enqueue.go decides). The contract of the
-- adds slot:
--
--   adds_all(now, later) -> out, ids, values
--                 store the call's jobs: one result per job (see
--                 enqueue.lua), their IDs and the values sent
--   first_adds    (optional) the whole call when every job is due now in
--                 a plain queue, before the call's set-up (see lua.go)
--
-- ARGV after the first two: triples per job, id, value (the envelope,
-- which the script prefixes with the enqueue time), due ("" now, "+ms"
-- after now or absolute "ms"); pairs, id and value, when ARGV[2] is "n"
-- or "N" (every job due now, enqueue.go's dueNow: sent to this variant of
-- no shape; a variant with one gets them only when the queue's shape was
-- new to the store, and pass turns them into triples); or, for one job
-- due now, its id and value alone, and KEYS without the tail key pending
-- (enqueue.go: tailless). One job costs one HSETNX (the duplicate check
-- and the insert); a batch one HMGET and one HSET.
--
-- A call of "n" pairs may come with the lead keys alone, jobs, ready and
-- lean (evalCall.short), which is all first_adds touches while the lean
-- mark is set (the call of one job due now then goes to
-- enqueue_lean.lua, a plain script): Redis makes a Lua string of every
-- key on every call. When the mark is not set, first_adds answers "~"
-- having done nothing, and the store sends the call again with every key.
-- A call that takes the lean way says so, for the store to send the
-- queue's next calls short: "R" instead of "r" (scripts.go: leanReply).
--- @include place events kinds lean
--- @keys jobs ready
--- @leadkeys jobs ready lean

-- pass hands the call over to the rest of the script, which reads the
-- marks itself and takes triples: one job due now, which comes as ID and
-- value (the fewest arguments), in the usual form (its reply is then a
-- table), with the kind its value holds; the pairs of jobs due now as
-- triples, each due now.
local function pass()
  local n = #ARGV
  if n == 2 then
    ARGV = {kind_of_new(ARGV[2]), 'n', ARGV[1], ARGV[2], ''}
  elseif ARGV[2] == 'n' or ARGV[2] == 'N' then
    local a, m = {ARGV[1], ARGV[2]}, 2
    for i = 3, n, 2 do
      a[m + 1], a[m + 2], a[m + 3], m = ARGV[i], ARGV[i + 1], '', m + 3
    end
    ARGV = a
  end
  return nil
end

-- SMALL_ADDS is the most jobs store_many stores with one HSETNX each;
-- more go in one HMGET and one HSET.
local SMALL_ADDS = 8

-- store_many stores the jobs of first_adds's call of more than one, their
-- values prefixed with pre, and pushes those stored to ready. It returns
-- the reply, the IDs stored and whether ready was empty before. The
-- reply is r alone when every job was stored, the usual call (Redis
-- turns a table into its reply element by element, some thousand
-- instructions each: enqueue.go's setEnqueueResults reads r as every
-- job's), else a result per job, r for one stored.
local function store_many(pre, r)
  local out, ready, m = nil, {}, 0
  if #ARGV <= 2 + 2 * SMALL_ADDS then
    -- A few jobs, what the enqueue batcher merges: one HSETNX each costs
    -- less than the tables of one HMGET and one HSET (bench/instr
    -- -batch 2, 4, 8 with callgrind.sh counts both).
    local k = 0
    for i = 3, #ARGV, 2 do
      k = k + 1
      local id = ARGV[i]
      if rcall('HSETNX', K.jobs, id, pre .. ARGV[i + 1]) == 1 then
        m = m + 1
        ready[m] = id
        if out then out[k] = r end
      else
        out = out or repeated(k - 1, r)
        out[k] = 'd' .. id
      end
    end
    if m == 0 then return out, ready, false end
    return out or r, ready, rcall('RPUSH', K.ready, unpack(ready)) == m
  end
  local all, n = {}, 0
  for i = 3, #ARGV, 2 do
    n = n + 1
    all[n] = ARGV[i]
  end
  local exist = call_chunked_flat('HMGET', K.jobs, all)
  local h = {}
  for k = 1, n do
    local id = all[k]
    if exist[k] then
      out = out or repeated(k - 1, r)
      out[k] = 'd' .. id
    else
      m = m + 1
      ready[m] = id
      h[2 * m - 1], h[2 * m] = id, pre .. ARGV[2 * k + 2]
      if out then out[k] = r end
    end
  end
  if m == 0 then return out, ready, false end
  call_chunked('HSET', K.jobs, h, 2)
  return out or r, ready, call_chunked('RPUSH', K.ready, ready, 1) == m
end

-- first_adds serves, before the call's set-up (lua.go: firsts), the call
-- every app makes: jobs due now (enqueue.go sends "n": every job due now,
-- no ID twice) into a plain queue, written out, since in this Lua a
-- function call, a table or a number conversion costs about a thousand
-- instructions, a good share of the whole call. It serves the call when
-- its events need no more than an entry or none (events.lua: not the
-- first step that skips its entry, nor the first entry after a hole);
-- else it returns nil (pass), for the rest of the script.
-- While the lean mark is set (lean.lua), the call needs no entry and its
-- clock comes from the mark: one PTTL (not for "N", sent when the ACL
-- user may not run PTTL). Else it reads the four marks that
-- decide that (the shape, the events' length, when a reader last read,
-- whether a step skipped its entry), the three an entry needs only when
-- a reader reads (a hole, a waiting reader, the generation), and TIME; and sets the lean mark when the call writes no
-- entry. ARGV[1] is the jobs' kind, except in the call of one job, whose
-- kind is read from its value only for an entry.
local function first_adds()
  local one, now = #ARGV == 2, ARGV[2]
  if SHAPE ~= '' or not (one or now == 'n' or now == 'N') then return pass() end
  local nows = (one or now == 'n') and lean_at(rcall('PTTL', K.lean))
  local lean = nows and true
  local rec, w, maxlen = false, false, nil
  if not nows then
    if not K.marks then return '~' end
    local mk = rcall('HMGET', K.marks, 'sh', 'ev', 'evr', 'evs')
    local sh, ev, evr = mk[1], mk[2], mk[3]
    if (sh and sh ~= '') or (ev and string.byte(ev, 1) ~= 45 and not string.match(ev, '^%d+$')) then
      return pass()
    end
    maxlen = EV_DEFAULT_MAXLEN_S
    if ev then
      maxlen = ev
      if string.byte(ev, 1) == 45 then maxlen = nil end -- '-': no events
    end
    nows = now_str()
    if maxlen then
      rec = ev_wanted(evr, nows)
      if not rec and not mk[4] then return pass() end
      if rec then
        local e = rcall('HMGET', K.marks, 'evh', 'evw', 'evg')
        -- A hole to skip, or a stream without its generation's mark:
        -- the long way writes the entry (events.lua's entry_id).
        if e[1] or not e[3] then return pass() end
        w = e[2]
      end
    end
    if not rec then
      lean_on()
      lean = now ~= 'N' -- "N": the store may not take the lean way
    end
  end
  local ids, out, woke = nil, nil, false
  if one or #ARGV == 4 then
    local id, val = ARGV[3], ARGV[4]
    if one then id, val = ARGV[1], ARGV[2] end
    if rcall('HSETNX', K.jobs, id, nows .. ',' .. val) == 0 then return 'd' .. id end
    woke = rcall('RPUSH', K.ready, id) == 1
    ids, out = id, lean and 'R' or 'r'
  else
    out, ids, woke = store_many(nows .. ',', lean and 'R' or 'r')
    if #ids == 0 then return out end
    if rec then ids = table.concat(ids, '\n') end
  end
  if woke or w then
    reset_base() -- the queue's name, for the wake-ups
    if woke then wake_ready() end
  end
  if rec then
    -- The jobs' kind: ARGV[1], or in the call of one job, its value's.
    ev_xadd(maxlen, '1-*', 't', nows, 'i', ids, 'y', '1', 'k', one and kind_of_new(ARGV[2]) or ARGV[1], 'a', '0', 'd', 'r')
    if w and tonumber(w) > tonumber(nows) then wake_events() end
  end
  return out
end

local function adds_all(now, later)
  local nows = ms_str(now) .. ','
  local out, ids, vals = {}, {}, {}
  if #ARGV == 5 then
    local id = ARGV[3]
    ids[1], vals[1] = id, ARGV[4]
    local v = nows .. ARGV[4]
    if rcall('HSETNX', K.jobs, id, v) == 0 then
      out[1] = 'd' .. id
    else
      out[1] = place(id, ARGV[5], v)
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
      out[k] = place(id, ARGV[3 * k + 2], v)
    end
  end
  if #h > 0 then call_chunked('HSET', K.jobs, h, 2) end
  return out, ids, vals
end
