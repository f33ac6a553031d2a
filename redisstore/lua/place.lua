-- place.lua: where new jobs go, for enqueue.lua and wfrel.lua: a call
-- places its jobs one by one, then store_placed writes them with one call
-- per destination.
-- pending is a tail key (lua.go): a call that places only jobs due now
-- may leave it out of KEYS.
--- @include ready
--- @tailkeys pending

-- placed collects the jobs of one call: IDs and stored values for ready
-- (in order), score and ID pairs for pending, the earliest pending due
-- time, and the stored values of all (ready_note). Made by the first
-- place of a call: a call that places nothing (the fast path of
-- adds/plain.lua) makes no table.
local placed
local function reset_place()
  placed = nil
end

-- due_ms turns an enqueue's due argument ("" for now, "+ms" for ms after
-- now, or an absolute "ms") into ms on the store's clock.
local function due_ms(due, now, later)
  if due == '' then return now end
  if string.byte(due, 1) == 43 then return after(now, later, tonumber(string.sub(due, 2))) end -- '+'
  return tonumber(due)
end

-- place puts job id, stored value v, where its due argument says (see
-- due_ms, which it inlines: place runs once per enqueued job, and a Lua
-- call per job is a measurable share of an enqueue's few microseconds).
-- It returns 'p' (pending: due later) or 'r' (ready).
local function place(id, due, now, later, v)
  if due == '' then
    due = now
  elseif string.byte(due, 1) == 43 then -- '+'
    due = after(now, later, tonumber(string.sub(due, 2)))
  else
    due = tonumber(due)
  end
  if not placed then placed = {ready = {}, rvals = {}, pend = {}, vals = {}, min_due = nil} end
  local vals = placed.vals
  vals[#vals + 1] = v
  if due > now then
    local p = placed.pend
    p[#p + 1] = str(due)
    p[#p + 1] = id
    if not placed.min_due or due < placed.min_due then placed.min_due = due end
    return 'p'
  end
  local r = placed.ready
  r[#r + 1] = id
  placed.rvals[#r] = v
  return 'r'
end

-- store_placed writes what place collected: one ZADD to pending and the
-- ready slot's push. It wakes the schedulers when the earliest due time
-- moved earlier, and idle workers when a ready list was empty (while it is
-- not, the claim that leaves jobs behind wakes them).
local function store_placed()
  if not placed then return end
  ready_note(placed.vals)
  if #placed.pend > 0 then
    local first = earliest(K.pending)
    call_chunked('ZADD', K.pending, placed.pend, 2)
    if not first or placed.min_due < first then wake_sched() end
  end
  if ready_push(placed.ready, false, placed.rvals) then wake_ready() end
end
