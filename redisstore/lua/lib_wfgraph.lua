-- lib_wfgraph.lua: a workflow's record and how task ends move it, for the
-- wf_*.lua scripts (see workflow_keys.go for the keys, workflow.go for the
-- design). Every key of one workflow shares the hash tag {<prefix>:wf:<id>}.
--
-- KEYS of every wf script: 1 m meta hash, 2 s task -> state, 3 q task ->
-- seq of the last record applied, 4 r task -> dependencies not yet
-- satisfied, 5 i task -> "queue\nkind\nallowFailure\nanyOutcome\naddedBy\norder",
-- 6 d task -> dependencies ("\n"-joined), 7 n task -> dependents, 8 p task
-- -> job payload until released, 9 o task -> result, 10 rel set of tasks
-- being released (enqueued into their queue, not yet confirmed).
--
-- Task states: w waiting, e enqueued, S succeeded, F failed, K skipped,
-- C cancelled. Meta: id, name, st (running, succeeded, failed, cancelled),
-- cx (cancel asked, 0/1), cr created ms, en ended ms (0 while running),
-- ret retention ms, nt tasks, open (tasks w or e), bad (tasks that fail the
-- workflow), ist (the state last written to the index), c_<state> counts.

local WK = {m = KEYS[1], s = KEYS[2], q = KEYS[3], r = KEYS[4], i = KEYS[5], d = KEYS[6],
  n = KEYS[7], p = KEYS[8], o = KEYS[9], rel = KEYS[10]}
local ENDED = {S = true, F = true, K = true, C = true}

local info_cache = {}
-- info returns task t's static info: q, k, af, ao, by, ord.
local function info(t)
  local c = info_cache[t]
  if c then return c end
  local v = redis.call('HGET', WK.i, t)
  if not v then return nil end
  local q, k, af, ao, by, ord = string.match(v, '^([^\n]*)\n([^\n]*)\n(%d)\n(%d)\n([^\n]*)\n(%d+)$')
  c = {q = q, k = k, af = af == '1', ao = ao == '1', by = by, ord = tonumber(ord)}
  info_cache[t] = c
  return c
end

-- names splits a "\n"-joined list.
local function names(v)
  local out = {}
  if not v or v == '' then return out end
  for x in string.gmatch(v, '[^\n]+') do out[#out + 1] = x end
  return out
end

local function is_bad(st, af)
  return st == 'K' or ((st == 'F' or st == 'C') and not af)
end

-- A script's reads and writes of task states, remaining counts and the
-- meta counters go through these caches: each is read at most once and
-- written back once, by flush, so that a batch of task ends costs a few
-- commands per task, not a dozen.
-- cached_hash returns a read-through cache of hash key's fields: the
-- cache table, get(field) (nil when the field is missing) and
-- prefetch(fields), which reads the fields not cached yet in one call.
local function cached_hash(key)
  local cache = {}
  local function get(f)
    local v = cache[f]
    if v == nil then
      v = redis.call('HGET', key, f) or false
      cache[f] = v
    end
    return v or nil
  end
  local function prefetch(fields)
    local need = {}
    for _, f in ipairs(fields) do
      if cache[f] == nil then need[#need + 1] = f end
    end
    if #need == 0 then return end
    local v = call_chunked_flat('HMGET', key, need)
    for i, f in ipairs(need) do cache[f] = v[i] or false end
  end
  return cache, get, prefetch
end

-- state returns task t's state letter, or nil when the workflow has no
-- such task; dependents_of returns its dependents ("\n"-joined) or nil.
local st_cache, state, prefetch = cached_hash(WK.s)
local _, dependents_of, prefetch_dependents = cached_hash(WK.n)
local st_dirty = {}
local rem_cache, rem_dirty = {}, {}
local counters = {}

local function bump(f, d) counters[f] = (counters[f] or 0) + d end
local COUNT = {w = 'c_w', e = 'c_e', S = 'c_S', F = 'c_F', K = 'c_K', C = 'c_C'}
local OPEN = {w = true, e = true}

-- set_state moves task t from old to new and keeps the counters.
local function set_state(t, new, old)
  if old == new then return end
  st_cache[t] = new
  st_dirty[t] = true
  if old then bump(COUNT[old], -1) end
  bump(COUNT[new], 1)
  local was_open, is_open = OPEN[old] or false, OPEN[new] or false
  if was_open ~= is_open then bump('open', is_open and 1 or -1) end
  -- Only failed, cancelled and skipped tasks may count as bad: read the
  -- task's info only then.
  if old == 'F' or old == 'C' or old == 'K' or new == 'F' or new == 'C' or new == 'K' then
    local af = info(t).af
    local wb, nb = (old and is_bad(old, af)) or false, is_bad(new, af)
    if wb ~= nb then bump('bad', nb and 1 or -1) end
  end
end

-- rem returns how many dependencies task t still waits for.
local function rem(t)
  local r = rem_cache[t]
  if r == nil then
    r = tonumber(redis.call('HGET', WK.r, t)) or 0
    rem_cache[t] = r
  end
  return r
end

local function set_rem(t, r)
  rem_cache[t] = r
  rem_dirty[t] = true
end

local released = {}
local wf_cancelled = redis.call('HGET', WK.m, 'cx') == '1'

-- release lets waiting task t go: into rel (at flush), for the caller to
-- enqueue; or, in a cancelled workflow, to cancelled.
local function release(t)
  if wf_cancelled then
    set_state(t, 'C', 'w')
    return
  end
  set_state(t, 'e', 'w')
  released[#released + 1] = t
end

-- flush writes the caches back.
local function flush()
  local h = {}
  for t in pairs(st_dirty) do
    h[#h + 1] = t
    h[#h + 1] = st_cache[t]
  end
  if #h > 0 then call_chunked('HSET', WK.s, h, 2) end
  h = {}
  for t in pairs(rem_dirty) do
    h[#h + 1] = t
    h[#h + 1] = rem_cache[t]
  end
  if #h > 0 then call_chunked('HSET', WK.r, h, 2) end
  for f, d in pairs(counters) do
    if d ~= 0 then redis.call('HINCRBY', WK.m, f, d) end
  end
  local rel = {}
  for _, t in ipairs(released) do
    if st_cache[t] == 'e' then rel[#rel + 1] = t end
  end
  if #rel > 0 then call_chunked('SADD', WK.rel, rel, 1) end
  st_dirty, rem_dirty, counters = {}, {}, {}
end

-- satisfied reports whether dependency dep, ended in state st, lets t run.
local function satisfied(dep, st, t)
  return st == 'S' or info(dep).af or info(t).ao
end

-- dep_status returns how many of deps (task t's dependencies) have not
-- ended, and whether one ended without satisfying t.
local function dep_status(deps, t)
  local open, bad = 0, false
  for _, dep in ipairs(deps) do
    local st = state(dep)
    if not ENDED[st] then
      open = open + 1
    elseif not satisfied(dep, st, t) then
      bad = true
    end
  end
  return open, bad
end

-- propagate applies task t's end in state st to its waiting dependents,
-- and skips onward through the dependents it skips.
local function propagate(t, st)
  local deps = dependents_of(t)
  if not deps then return end
  if st == 'S' and not string.find(deps, '\n', 1, true) then
    -- The common case: one dependent, satisfied.
    if state(deps) == 'w' then
      local r = rem(deps) - 1
      set_rem(deps, r)
      if r <= 0 then release(deps) end
    end
    return
  end
  local todo, k = {{t, st}}, 1
  while k <= #todo do
    local cur, cst = todo[k][1], todo[k][2]
    k = k + 1
    for _, d in ipairs(names(dependents_of(cur))) do
      if state(d) == 'w' then
        if satisfied(cur, cst, d) then
          local r = rem(d) - 1
          set_rem(d, r)
          if r <= 0 then release(d) end
        else
          set_state(d, 'K', 'w')
          todo[#todo + 1] = {d, 'K'}
        end
      end
    end
  end
end

-- reopen makes the tasks skipped because of task t (requeued) wait again,
-- onward through their dependents, unless another dependency still
-- skips them.
local function reopen(t)
  local stack = {t}
  while #stack > 0 do
    local cur = table.remove(stack)
    for _, d in ipairs(names(dependents_of(cur))) do
      if state(d) == 'K' then
        local open, bad = dep_status(names(redis.call('HGET', WK.d, d)), d)
        if not bad then
          set_rem(d, open)
          set_state(d, 'w', 'K')
          if open == 0 then release(d) end
          stack[#stack + 1] = d
        end
      end
    end
  end
end

-- end_check ends the workflow when no task is open, and re-opens it when
-- one is again. It reads the meta hash: call it after flush.
local function end_check(now)
  local m = redis.call('HMGET', WK.m, 'st', 'open', 'bad', 'cx')
  local st, open, bad = m[1], tonumber(m[2]) or 0, tonumber(m[3]) or 0
  if open == 0 and st == 'running' then
    local new = 'succeeded'
    if m[4] == '1' then new = 'cancelled' elseif bad > 0 then new = 'failed' end
    redis.call('HSET', WK.m, 'st', new, 'en', now)
  elseif open > 0 and st ~= 'running' then
    redis.call('HSET', WK.m, 'st', 'running', 'en', 0)
  end
end

-- reply returns the workflow's state, its indexed state, created ms, ended
-- ms and retention ms, then for each task of list: name, queue, payload.
local function reply(list)
  local m = redis.call('HMGET', WK.m, 'st', 'ist', 'cr', 'en', 'ret')
  local out = {m[1] or '', m[2] or '', m[3] or '0', m[4] or '0', m[5] or '0'}
  if #list > 0 then
    local pl = call_chunked_flat('HMGET', WK.p, list)
    for i = 1, #list do
      local st = st_cache[list[i]]
      if pl[i] and (st == nil or st == 'e') then
        out[#out + 1] = list[i]
        out[#out + 1] = info(list[i]).q
        out[#out + 1] = pl[i]
      end
    end
  end
  return out
end
