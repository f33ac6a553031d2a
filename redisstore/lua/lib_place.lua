-- lib_place.lua: where new jobs go, for enqueue.lua and enqueue_plain.lua
-- (see scripts.go; needs lib_prio.lua and lib_group.lua).

-- placed collects the jobs of one call: IDs for ready (in order), score and
-- ID pairs for pending, and the earliest pending due time; with
-- priorities, lv holds the ready IDs of each level but 0 and ps the
-- priorities (keys) of every job placed; with groups, gr holds the ready
-- IDs of each group and grouped is set (a grouped job was placed, ready
-- or pending).
local placed
local function reset_place()
  placed = {ready = {}, pend = {}, min_due = nil}
end

-- due_ms turns an enqueue's due argument ("" for now, "+ms" for ms after
-- now, or an absolute "ms") into ms on the store's clock.
local function due_ms(due, now, later)
  if due == '' then return now end
  if string.byte(due, 1) == 43 then return after(now, later, tonumber(string.sub(due, 2))) end -- '+'
  return tonumber(due)
end

-- place_in appends id to the list of key in placed[field] (gr: by group,
-- lv: by priority level), making both as needed.
local function place_in(field, key, id)
  local t = placed[field]
  if not t then
    t = {}
    placed[field] = t
  end
  local l = t[key]
  if not l then
    l = {}
    t[key] = l
  end
  l[#l + 1] = id
end

-- place puts job id where it goes, given its due argument (see due_ms,
-- which it inlines: place runs once per enqueued job, and a Lua call per
-- job is a measurable share of an enqueue's few microseconds). prio is
-- the job's priority (nil for 0), group its group (nil for none). It
-- returns 'p' (pending: due later) or 'r' (ready).
local function place(id, due, now, later, prio, group)
  if due == '' then
    due = now
  elseif string.byte(due, 1) == 43 then -- '+'
    due = after(now, later, tonumber(string.sub(due, 2)))
  else
    due = tonumber(due)
  end
  if prio and prio ~= 0 then
    placed.ps = placed.ps or {}
    placed.ps[prio] = true
  end
  if group then placed.grouped = true end
  if due > now then
    local p = placed.pend
    p[#p + 1] = str(due)
    p[#p + 1] = id
    if not placed.min_due or due < placed.min_due then placed.min_due = due end
    return 'p'
  end
  if group then
    place_in('gr', group, id)
  elseif prio and prio ~= 0 then
    place_in('lv', prio, id)
  else
    placed.ready[#placed.ready + 1] = id
  end
  return 'r'
end

-- store_placed writes what place collected: one ZADD to pending, one RPUSH
-- to ready (one per priority level with priorities, which it marks in the
-- config hash conf). It wakes the schedulers when the earliest due time
-- moved earlier, and idle workers when ready was empty (while it is not,
-- the claim that leaves jobs behind wakes them). gm is the config's field
-- of that name: whether the queue rotates over groups.
local function store_placed(ready, pending, conf, gm)
  if placed.ps or placed.grouped then
    local cf = redis.call('HMGET', conf, 'pm', 'gm')
    if placed.ps then ext().mark_levels(conf, cf[1], placed.ps) end
    if placed.grouped then
      ext().groups_on(ready, conf, cf[2], cf[1])
      gm = true
    end
  end
  if #placed.pend > 0 then
    local first = earliest(pending)
    call_chunked('ZADD', pending, placed.pend, 2)
    if not first or placed.min_due < first then wake_sched() end
  end
  local n = #placed.ready
  local woke = false
  if n > 0 and call_chunked('RPUSH', ready, placed.ready, 1) == n then woke = true end
  if placed.lv then
    for p, l in pairs(placed.lv) do
      if call_chunked('RPUSH', ready_at(ready, p), l, 1) == #l then woke = true end
    end
  end
  if gm and (n > 0 or placed.lv) and ext().group_activate(ready, '') then woke = true end
  if placed.gr then
    for g, l in pairs(placed.gr) do
      if ext().push_group(ready, g, l) then woke = true end
    end
  end
  if woke then wake_ready() end
end
