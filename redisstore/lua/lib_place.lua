-- lib_place.lua: where new jobs go, for enqueue.lua and enqueue_plain.lua
-- (see scripts.go; needs lib_prio.lua).

-- placed collects the jobs of one call: IDs for ready (in order), score and
-- ID pairs for pending, and the earliest pending due time; with
-- priorities, lv holds the ready IDs of each level but 0 and ps the
-- priorities (keys) of every job placed.
local placed = {ready = {}, pend = {}, min_due = nil}

-- due_ms turns an enqueue's due argument ("" for now, "+ms" for ms after
-- now, or an absolute "ms") into ms on the store's clock.
local function due_ms(due, now, later)
  if due == '' then return now end
  if string.byte(due, 1) == 43 then return after(now, later, tonumber(string.sub(due, 2))) end -- '+'
  return tonumber(due)
end

-- place puts job id where it goes, given its due argument (see due_ms,
-- which it inlines: place runs once per enqueued job, and a Lua call per
-- job is a measurable share of an enqueue's few microseconds). prio is
-- the job's priority (nil for 0). It returns 'p' (pending: due later) or
-- 'r' (ready).
local function place(id, due, now, later, prio)
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
  if due > now then
    local p = placed.pend
    p[#p + 1] = str(due)
    p[#p + 1] = id
    if not placed.min_due or due < placed.min_due then placed.min_due = due end
    return 'p'
  end
  if prio and prio ~= 0 then
    local lv = placed.lv or {}
    placed.lv = lv
    local l = lv[prio]
    if not l then
      l = {}
      lv[prio] = l
    end
    l[#l + 1] = id
  else
    placed.ready[#placed.ready + 1] = id
  end
  return 'r'
end

-- store_placed writes what place collected: one ZADD to pending, one RPUSH
-- to ready (one per priority level with priorities, which it marks in the
-- config hash conf). It wakes the schedulers when the earliest due time
-- moved earlier, and idle workers when ready was empty (while it is not,
-- the claim that leaves jobs behind wakes them).
local function store_placed(ready, pending, conf)
  if placed.ps then mark_levels(conf, redis.call('HGET', conf, 'pm'), placed.ps) end
  if #placed.pend > 0 then
    local first = earliest(pending)
    call_chunked('ZADD', pending, placed.pend, 2)
    if not first or placed.min_due < first then wake_sched() end
  end
  local n = #placed.ready
  if n > 0 and call_chunked('RPUSH', ready, placed.ready, 1) == n then
    wake_ready()
  end
  if placed.lv then
    local woke = false
    for p, l in pairs(placed.lv) do
      if call_chunked('RPUSH', ready_at(ready, p), l, 1) == #l then woke = true end
    end
    if woke then wake_ready() end
  end
end
