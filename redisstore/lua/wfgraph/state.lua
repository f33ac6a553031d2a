-- wfgraph/state.lua: a workflow's record, read and written through
-- caches, for the wf_*.lua scripts and wf/local.lua (see workflow.go for
-- the design; keys.go names the keys). Every key of one workflow shares
-- the hash tag {<prefix>:wf:<id>}.
--
-- A script first opens one workflow with wf_use(keys), keys being the
-- workflow's eight keys in keys.go's order (nil: the script's own, K):
-- meta, states (task -> its dynamic state and dependents), rem (task ->
-- dependencies not yet satisfied; a task missing waits for nothing), info
-- (task -> "queue\nkind\nallowFailure\nanyOutcome\naddedBy\norder"),
-- deps (task -> dependencies, "\n"-joined), payloads (task -> its job
-- until released), results (task -> result), rel (tasks being released:
-- enqueued into their queue, not yet confirmed).
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
-- The library functions the hot paths call, looked up once a call by
-- reset_wfgraph (a function library sees no string table while it
-- loads): nxt is next; find and sub, string.find and string.sub, serve
-- the later files too (wfgraph/flow.lua, wfsettle.lua, wf/local.lua).
local nxt
local find, sub
-- NUM memoizes tonumber (or 0) for the strings of up to two characters,
-- by num: the meta counters and remaining counts a step reads are mostly
-- such strings, and tonumber costs about two thousand instructions. A
-- read is NUM[v] or num(v); false, what a missing field reads as, is 0
-- from the start (a new workflow's). A longer string is converted each
-- time, so that NUM, which a library keeps from call to call, stays
-- small: the fields read hold numbers, at most the 110 strings of -9 to
-- 99.
local NUM = {[false] = 0}
local function num(v)
  local n = tonumber(v) or 0
  if v and #v <= 2 then NUM[v] = n end
  return n
end
local ENDED = {S = true, F = true, K = true, C = true}
-- END_STATE maps an end's outcome to the state it gives a running task.
local END_STATE = {s = 'S', f = 'F', c = 'C', d = 'F'}

local info_cache
-- info returns task t's static info: q, k, af, ao, by, ord.
local function info(t)
  local c = info_cache[t]
  if c then return c end
  local v = rcall('HGET', WK.i, t)
  if not v then return nil end
  local q, k, af, ao, by, ord = string.match(v, '^([^\n]*)\n([^\n]*)\n(%d)\n(%d)\n([^\n]*)\n(%d+)$')
  c = {q = q, k = k, af = af == '1', ao = ao == '1', by = by, ord = tonumber(ord)}
  info_cache[t] = c
  return c
end

-- info_queue returns task t's queue (info(t).q) without parsing the rest
-- of its info: a release needs only the queue, and a pattern of six
-- captures costs about ten thousand instructions.
local function info_queue(t)
  local c = info_cache[t]
  if c then return c.q end
  -- WM.infos: the infos of the tasks this step added (wfadd.lua), not read
  -- back with a command each.
  local v = WM.infos and WM.infos[t] or rcall('HGET', WK.i, t)
  if not v then return nil end
  local z = find(v, '\n', 1, true)
  return z and sub(v, 1, z - 1) or v
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
-- such task), seq_cache seqs (none for a task with no end applied yet),
-- dep_cache dependents ("\n"-joined, none for a task without): a task
-- whose field has no seq or no dependents leaves nothing in seq_cache or
-- dep_cache, so that the usual step leaves them empty, and kept (wf_use).
-- rem_cache holds the remaining counts set (set_rem), rem_dirty marks
-- them; counters the changes to the meta counters.
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
  if #v == 1 then
    -- A state alone (no end applied yet, no dependents): most tasks of a
    -- fan-out, read without a pattern.
    st_cache[t] = v
    return
  end
  if string.byte(v, 2) == 124 then
    -- A state and its dependents, no end applied yet ('|' is 124): a
    -- chain's next task, read without a pattern.
    st_cache[t], dep_cache[t] = sub(v, 1, 1), sub(v, 3)
    return
  end
  local st, seq, bar, deps = string.match(v, '^(.)(%d*)(|?)(.*)$')
  st_cache[t] = st
  if seq ~= '' then seq_cache[t] = seq end
  if bar ~= '' then dep_cache[t] = deps end
end

-- state returns task t's state letter, or nil when the workflow has no
-- such task.
local function state(t)
  local c = st_cache[t]
  if c == nil then
    load_state(t, rcall('HGET', WK.s, t) or false)
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

-- set_state moves task t from old to new and keeps the counters (the
-- bumps of old's and new's counts written out: a Lua call costs about a
-- thousand instructions, and a chain's step releases a task each).
local function set_state(t, new, old)
  if old == new then return end
  st_cache[t] = new
  st_dirty[t] = true
  local c = counters
  if old then
    local f = COUNT[old]
    c[f] = (c[f] or 0) - 1
  end
  local f = COUNT[new]
  c[f] = (c[f] or 0) + 1
  local was_open, is_open = OPEN[old] or false, OPEN[new] or false
  if was_open ~= is_open then
    bump('open', is_open and 1 or -1)
    -- A task open again (requeued): the workflow re-opens, even when it
    -- ends again in the same step (end_check).
    if is_open then WM.reopened = true end
  end
  -- Only failed, cancelled and skipped tasks may count as bad: read the
  -- task's info only then.
  if old == 'F' or old == 'C' or old == 'K' or new == 'F' or new == 'C' or new == 'K' then
    local af = info(t).af
    local wb, nb = (old and is_bad(old, af)) or false, is_bad(new, af)
    if wb ~= nb then bump('bad', nb and 1 or -1) end
  end
end

-- rem returns how many dependencies task t still waits for: the count
-- set in this step (set_rem), else the stored one, read again at each
-- call (a step reads a task's count once or twice; kept, it would make
-- rem_cache a new table at every workflow opened: wf_use).
local function rem(t)
  local r = rem_cache[t]
  if r == nil then
    r = rcall('HGET', WK.r, t)
    r = NUM[r] or num(r)
  end
  return r
end

local function set_rem(t, r)
  rem_cache[t] = r
  rem_dirty[t] = true
end

local released, wf_cancelled
-- WM holds what the script knows of the meta hash: st (false: no such
-- workflow), open and bad (numbers, kept up to date by flush), ist; and
-- infos and pls, the infos and, on one server, the payloads of the tasks
-- the step added and released at once (task -> info, task -> payload;
-- wfadd.lua), or nil.
local WM
-- wf_inline: the script enqueues the tasks it releases itself, in the same
-- step (wf/local.lua), and decides itself which go to rel.
local wf_inline = false

-- reset_wfgraph starts a call with no workflow open, and the dirty sets
-- and counters empty (kept from the last call when it left them so).
local function reset_wfgraph()
  nxt, find, sub = next, string.find, string.sub
  WK, WM, wf_cancelled = nil, nil, nil
  if not st_dirty or nxt(st_dirty) ~= nil then st_dirty = {} end
  if not rem_dirty or nxt(rem_dirty) ~= nil then rem_dirty = {} end
  if not counters or nxt(counters) ~= nil then counters = {} end
  if not info_cache then info_cache, seq_cache, dep_cache, rem_cache, released = {}, {}, {}, {}, {} end
end

-- The tables WK and WM, the same from one workflow to the next (a finish
-- opens one workflow a chain's task): nothing keeps either past the next
-- wf_use.
local wk_kept, wm_kept

-- wf_use opens the workflow of keys (see above) with empty caches; a
-- script that works on several workflows flushes one before it opens the
-- next (flush leaves the dirty sets and counters empty). With at, its
-- keys are KEYS[at] to KEYS[at + 7] instead.
local function wf_use(keys, at)
  local w = wk_kept or {}
  wk_kept = w
  if at then
    w.m, w.s, w.r, w.i = KEYS[at], KEYS[at + 1], KEYS[at + 2], KEYS[at + 3]
    w.d, w.p, w.o, w.rel = KEYS[at + 4], KEYS[at + 5], KEYS[at + 6], KEYS[at + 7]
  else
    if keys then
      w.m, w.s, w.r, w.i, w.d, w.p, w.o, w.rel = keys[1], keys[2], keys[3], keys[4], keys[5], keys[6], keys[7], keys[8]
    else
      w.m, w.s, w.r, w.i = K.wf_meta, K.wf_states, K.wf_rem, K.wf_info
      w.d, w.p, w.o, w.rel = K.wf_deps, K.wf_payloads, K.wf_results, K.wf_rel
    end
  end
  WK = w
  local nx = nxt
  if nx(st_dirty) ~= nil or nx(rem_dirty) ~= nil or nx(counters) ~= nil then
    error('hopper: a workflow opened before the one open was flushed')
  end
  -- A workflow's end mostly leaves these caches empty: kept then, since
  -- a table made and collected costs more than a look.
  st_cache = {}
  if nx(info_cache) ~= nil then info_cache = {} end
  if nx(seq_cache) ~= nil then seq_cache = {} end
  if nx(dep_cache) ~= nil then dep_cache = {} end
  if nx(rem_cache) ~= nil then rem_cache = {} end
  for k = #released, 1, -1 do released[k] = nil end -- kept_trim(released, 0)
  local m = rcall('HMGET', WK.m, 'st', 'cx', 'open', 'bad', 'ist')
  local x = wm_kept or {}
  wm_kept = x
  local o, b = m[3], m[4]
  x.st, x.open, x.bad, x.ist, x.reopened, x.infos, x.pls = m[1], NUM[o] or num(o), NUM[b] or num(b), m[5], nil, nil, nil
  WM = x
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

-- flush writes the caches back (what is empty costs a next() each: the
-- usual end of a task leaves all but the counters so; its loops call
-- next itself, which pairs would return). direct, when given, holds nd
-- values (field, value) of s that the caller wrote past the caches: they
-- go in the same HSET, before the cached states, so a task in both gets
-- the cached state, as it would with two HSETs.
local function flush(direct, nd)
  local h, nh, nx = direct, nd or 0, nxt
  if nx(st_dirty) ~= nil then
    h = h or {}
    for t in nx, st_dirty do
      local v, seq, deps = st_cache[t], seq_cache[t], dep_cache[t]
      if seq and seq ~= '' then v = v .. seq end
      if deps then v = v .. '|' .. deps end
      h[nh + 1], h[nh + 2], nh = t, v, nh + 2
      st_dirty[t] = nil
    end
  end
  if nh > 0 then call_chunked('HSET', WK.s, h, 2) end
  if nx(rem_dirty) ~= nil then
    local h = {}
    for t in pairs(rem_dirty) do
      h[#h + 1] = t
      h[#h + 1] = rem_cache[t]
    end
    call_chunked('HSET', WK.r, h, 2)
    rem_dirty = {}
  end
  if nx(counters) ~= nil then
    -- Cleared field by field, not made again: the same few counters
    -- change at every workflow a finish opens.
    for f, d in nx, counters do
      if d ~= 0 then rcall('HINCRBY', WK.m, f, SMALL[d] or str(d)) end
      if f == 'open' or f == 'bad' then WM[f] = WM[f] + d end
      counters[f] = nil
    end
  end
  if #released > 0 and not wf_inline then
    local rel = {}
    for _, t in ipairs(released) do
      if st_cache[t] == 'e' then rel[#rel + 1] = t end
    end
    if #rel > 0 then call_chunked('SADD', WK.rel, rel, 1) end
  end
end
