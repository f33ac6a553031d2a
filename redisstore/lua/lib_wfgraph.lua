-- lib_wfgraph.lua: a workflow's record and how task ends move it, for the
-- wf_*.lua scripts (see workflow_keys.go for the keys, workflow.go for the
-- design). Every key of one workflow shares the hash tag {<prefix>:wf:<id>}.
--
-- A script first opens one workflow with wf_use(keys), keys being (for the
-- wf_*.lua scripts, KEYS): 1 m meta hash, 2 s task -> its dynamic state
-- and dependents, 3 r task -> dependencies not yet satisfied (a task
-- missing waits for nothing), 4 i task ->
-- "queue\nkind\nallowFailure\nanyOutcome\naddedBy\norder", 5 d task ->
-- dependencies ("\n"-joined), 6 p task -> job payload until released,
-- 7 o task -> result, 8 rel set of tasks being released (enqueued into
-- their queue, not yet confirmed).
--
-- A field of s is the state letter, then the seq of the task's last end
-- applied (none before the first), then, when the task has dependents, '|'
-- and their names "\n"-joined: "w", "e|b\nc", "S1234|b\nc". Ending a
-- task reads and writes this one field (task names hold no '|').
--
-- Task states: w waiting, e enqueued, S succeeded, F failed, K skipped,
-- C cancelled. Meta: id, name, st (running, succeeded, failed, cancelled),
-- cx (cancel asked, 0/1), cr created ms, en ended ms (0 while running),
-- ret retention ms, nt tasks, open (tasks w or e), bad (tasks that fail the
-- workflow), ist (the state last written to the index), c_<state> counts.

local WK
local ENDED = {S = true, F = true, K = true, C = true}
-- END_STATE maps an end's outcome to the state it gives a running task.
local END_STATE = {s = 'S', f = 'F', c = 'C', d = 'F'}

local info_cache
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
-- commands per task, not a dozen. st_cache holds state letters (false: no
-- such task), seq_cache seqs, dep_cache dependents ("\n"-joined, false for
-- none).
local st_cache, seq_cache, dep_cache
local st_dirty, rem_cache, rem_dirty, counters

local function bump(f, d) counters[f] = (counters[f] or 0) + d end
local COUNT = {w = 'c_w', e = 'c_e', S = 'c_S', F = 'c_F', K = 'c_K', C = 'c_C'}
local OPEN = {w = true, e = true}

-- load_state caches task t's field of s, v (false when missing).
local function load_state(t, v)
  if not v then
    st_cache[t] = false
    return
  end
  local st, seq, bar, deps = string.match(v, '^(.)(%d*)(|?)(.*)$')
  st_cache[t], seq_cache[t] = st, seq
  dep_cache[t] = bar ~= '' and deps
end

-- state returns task t's state letter, or nil when the workflow has no
-- such task.
local function state(t)
  local c = st_cache[t]
  if c == nil then
    load_state(t, redis.call('HGET', WK.s, t) or false)
    c = st_cache[t]
  end
  return c or nil
end

-- dependents_of returns task t's dependents ("\n"-joined), or nil.
local function dependents_of(t)
  if not state(t) then return nil end
  return dep_cache[t] or nil
end

-- add_dependents appends names ("\n"-joined) to task t's dependents.
local function add_dependents(t, names)
  local cur = state(t) and dep_cache[t]
  dep_cache[t] = cur and (cur .. '\n' .. names) or names
  st_dirty[t] = true
end

-- prefetch reads the states of tasks not cached yet in one call.
local function prefetch(tasks)
  local need = {}
  for _, t in ipairs(tasks) do
    if st_cache[t] == nil then need[#need + 1] = t end
  end
  if #need == 0 then return end
  local v = call_chunked_flat('HMGET', WK.s, need)
  for i, t in ipairs(need) do load_state(t, v[i] or false) end
end

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

local released, wf_cancelled
-- WM holds what the script knows of the meta hash: st (false: no such
-- workflow), open and bad (numbers, kept up to date by flush), ist.
local WM
-- wf_inline: the script enqueues the tasks it releases itself, in the same
-- step (lib_wflocal.lua), so flush leaves them out of rel.
local wf_inline = false

-- reset_wfgraph starts a call with no workflow open.
local function reset_wfgraph()
  WK, WM, info_cache = nil, nil, {}
  st_cache, seq_cache, dep_cache = nil, nil, nil
  st_dirty, rem_cache, rem_dirty, counters = nil, nil, nil, nil
  released, wf_cancelled = nil, nil
end

-- wf_use opens the workflow of keys (see above) with empty caches; a
-- script that works on several workflows flushes one before it opens the
-- next.
local function wf_use(keys)
  WK = {m = keys[1], s = keys[2], r = keys[3], i = keys[4], d = keys[5], p = keys[6], o = keys[7], rel = keys[8]}
  info_cache = {}
  st_cache, seq_cache, dep_cache = {}, {}, {}
  st_dirty, rem_cache, rem_dirty, counters = {}, {}, {}, {}
  released = {}
  local m = redis.call('HMGET', WK.m, 'st', 'cx', 'open', 'bad', 'ist')
  WM = {st = m[1], open = tonumber(m[3]) or 0, bad = tonumber(m[4]) or 0, ist = m[5]}
  wf_cancelled = m[2] == '1'
end

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
    local v, seq, deps = st_cache[t], seq_cache[t], dep_cache[t]
    if seq and seq ~= '' then v = v .. seq end
    if deps then v = v .. '|' .. deps end
    h[#h + 1] = t
    h[#h + 1] = v
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
    if f == 'open' or f == 'bad' then WM[f] = WM[f] + d end
  end
  local rel = {}
  for _, t in ipairs(released) do
    if st_cache[t] == 'e' then rel[#rel + 1] = t end
  end
  if #rel > 0 and not wf_inline then call_chunked('SADD', WK.rel, rel, 1) end
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
-- one is again (what WM says: call it after flush).
local function end_check(now)
  if WM.open == 0 and WM.st == 'running' then
    local new = 'succeeded'
    if wf_cancelled then new = 'cancelled' elseif WM.bad > 0 then new = 'failed' end
    redis.call('HSET', WK.m, 'st', new, 'en', now)
    WM.st = new
  elseif WM.open > 0 and WM.st ~= 'running' then
    redis.call('HSET', WK.m, 'st', 'running', 'en', 0)
    WM.st = 'running'
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

-- apply_ends applies n task ends to the open workflow: the k-th is task
-- tasks[k]'s, with the seq seqs[k] (decimal digits; false for an end
-- applied in the step that ended the job, lib_wflocal.lua), outcome
-- ocs[k] (s, f, c, d, r) and result res[k], at time now (ms). A task
-- remembers the seq of the last end applied, and an older or repeated one
-- changes nothing. It returns whether one end had been applied before (a
-- delivery a dead process left half done).
local function apply_ends(n, tasks, seqs, ocs, res, now)
  local again = false
  if n > 0 then
    prefetch(tasks)
    local results = {}
    local ok = 0 -- running tasks that succeeded (the fast path below)
    for k = 1, n do
      local t, seq, oc = tasks[k], seqs[k], ocs[k]
      local cur = state(t)
      if not cur then
        -- not a task of this workflow: nothing to apply
      elseif seq and tonumber(seq) <= (tonumber(seq_cache[t]) or 0) then
        again = true
      elseif cur == 'e' and oc == 's' then
        -- The usual end: a running task succeeded. set_state's work, with
        -- the counters bumped once for all.
        seq_cache[t] = seq or seq_cache[t]
        st_cache[t] = 'S'
        st_dirty[t] = true
        ok = ok + 1
        if res[k] ~= '' then
          results[#results + 1] = t
          results[#results + 1] = res[k]
        end
        propagate(t, 'S')
      else
        seq_cache[t] = seq or seq_cache[t]
        st_dirty[t] = true
        if oc == 'r' then
          if cur == 'F' or cur == 'C' then
            set_state(t, 'e', cur)
            reopen(t)
          end
        elseif cur == 'e' then
          -- Only a running task ends: the end of a done task's job run
          -- again (requeued from done) leaves its workflow as it is.
          local new = END_STATE[oc]
          if new and new ~= cur then
            set_state(t, new, cur)
            propagate(t, new)
          end
        end
      end
    end
    if ok > 0 then
      bump('c_e', -ok)
      bump('c_S', ok)
      bump('open', -ok)
    end
    if #results > 0 then call_chunked('HSET', WK.o, results, 2) end
    flush()
    end_check(now)
  end
  return again
end
