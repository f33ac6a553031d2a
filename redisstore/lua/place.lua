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

-- due_later turns an enqueue's due argument into its score in pending and
-- that time in ms (a number, for comparisons) when it is after now, to
-- the µs; nil when the job is due now: "" is now, "+ms" ms after now, an
-- absolute "ms" that time. ms may carry up to three decimals (enqueue.go
-- sends the µs of a Delay or a RunAt). An absolute time is its own score,
-- as sent (a year 9999 RunAt has no exact µs in a double, its ms stay
-- exact); a Delay counts from TIME's own µs (us_score), so a job falls
-- due the time asked for after the server took the call, never before.
local function due_later(due)
  if due == '' then return nil end
  local score, at
  if string.byte(due, 1) == 43 then -- '+'
    local us = now_us() + math.floor(tonumber(string.sub(due, 2)) * 1000 + 0.5)
    score, at = us_score(us), us / 1000
  else
    score, at = due, tonumber(due)
  end
  if at * 1000 > now_us() then return score, at end
  return nil
end

-- new_placed is placed's empty table, made by a call's first place.
local function new_placed()
  return {ready = {}, rvals = {}, pend = {}, vals = {}, min_due = nil}
end

-- place puts job id, stored value v, where its due argument says (see
-- due_later): pending when due after now, else ready. It returns 'p'
-- (pending: due later) or 'r' (ready).
local function place(id, due, v)
  local score, at
  if due ~= '' then score, at = due_later(due) end
  if not placed then placed = new_placed() end
  local vals = placed.vals
  vals[#vals + 1] = v
  if score then
    local p = placed.pend
    p[#p + 1] = score
    p[#p + 1] = id
    if not placed.min_due or at < placed.min_due then placed.min_due = at end
    return 'p'
  end
  local r = placed.ready
  r[#r + 1] = id
  placed.rvals[#r] = v
  return 'r'
end

-- ready_lists returns placed's lists of the jobs due now (IDs, their
-- stored values) and of every job's stored value, making placed if no
-- place came first: a caller that places many jobs due now appends to
-- them itself, in order (r[k] and rv[k] together, each value also at the
-- end of all), and costs a few table writes a job instead of a Lua call
-- (about a thousand instructions each). A place after the caller's
-- appends moves the lists' ends: the caller reads their lengths again.
local function ready_lists()
  if not placed then placed = new_placed() end
  return placed.ready, placed.rvals, placed.vals
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
