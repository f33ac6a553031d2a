-- groups/take.lua: a claim of a grouped queue, for ready/group.lua.
--- @include groups/store groups/rotation groups/caps groups/holds groups/rate levels
--- @keys g_known

-- take_fast visits members with no cap, rate limit or hold in the queue:
-- one pop per member, nothing else per job. t is the claim's state (see
-- take_grouped).
local function take_fast(t, members, share, n)
  local ids = t.ids
  local have = #ids
  for _, g in ipairs(members) do
    local k = math.min(share, n - have)
    local got = 0
    if k > 0 then
      if g == '' then
        local l = levels_pop(k)
        got = #l
        for i = 1, got do ids[have + i] = l[i] end
      else
        local fl
        got, fl = group_pop(g, k, t.taken, ids, have)
        if fl then t.lp = t.lp + fl end
        -- Fewer than asked: the group holds no more.
        if got < k then t.gone[#t.gone + 1] = g end
      end
      have = have + got
    end
    if k == 0 then
      t.front[#t.front + 1] = g -- no room left in the claim: its turn stays first
    elseif got == k then
      t.back[#t.back + 1] = g
    else
      t.out[#t.out + 1] = g
    end
  end
end

-- take_room returns how many jobs group g may give now, within k: under
-- its cap (c, with r running), and under its rate limit, which holds the
-- group once used up. It returns the rate log's state for GR.note.
local function take_room(t, g, k, c, r, now)
  if c > 0 then k = math.min(k, c - r) end
  if t.rate == 0 or k <= 0 then return k end
  if t.iv then
    if not t.us then t.us = now_us() end
    local room, free, tat = GR.pace_room(g, t.us, t.iv, t.tol, t.lead)
    if room <= 0 then
      group_hold(g, math.ceil(free / 1000))
      t.holding = true
      return 0
    end
    return math.min(k, room), tat
  end
  local used, free, rest = GR.trim(g, now, t.period)
  if used >= t.rate then
    group_hold(g, free or (now + t.period))
    t.holding = true
    return 0
  end
  return math.min(k, t.rate - used), used, rest
end

-- take_member visits member g of the rotation with share jobs to give,
-- and returns whether it keeps its turn (true), leaves the rotation
-- (false) or stays first (nil).
local function take_member(t, g, share, n, now)
  local room = n - #t.ids
  if room == 0 then
    t.front[#t.front + 1] = g -- no room left in the claim: its turn stays first
    return nil
  end
  if g == '' then
    local k = math.min(share, room)
    local got = levels_pop(k)
    for i = 1, #got do t.ids[#t.ids + 1] = got[i] end
    return #got == k
  end
  if t.held[g] then return false end
  local c, r = t.cap(g), t.run[g] or 0
  local k, used, rest = take_room(t, g, math.min(share, room), c, r, now)
  local keep = false
  if k > 0 then
    local have = #t.ids
    local got, fl = group_pop(g, k, t.taken, t.ids, have)
    if fl then t.lp = t.lp + fl end
    if t.iv and used then
      GR.pace_note(g, used, t.iv, got)
      -- Each job's wait before it starts (StartAfter), by its slot.
      for i = 1, got do
        t.after[have + i] = math.max(used - t.tol + (i - 1) * t.iv - t.us, 0)
      end
    elseif used then
      GR.note(g, used, rest, now, got)
    end
    if got > 0 and not t.took[g] then
      t.took[g] = true
      t.order[#t.order + 1] = g
    end
    r = r + got
    keep = got == k and (c == 0 or r < c)
    if got < k then t.gone[#t.gone + 1] = g end -- it holds no more
  end
  t.run[g] = r
  return keep
end

-- The lists of a pass: kept from one pass and one claim to the next
-- (base.lua's kept_trim), as a grouped claim makes a pass or more each.
local TP_BACK, TP_OUT, TP_FRONT, TP_TAKEN = {}, {}, {}, {}

-- The claim's state (take_grouped's t) and its lists and maps, kept from
-- one claim to the next as well: made anew, the state's two dozen fields
-- and the IDs' list grew by rehashes at every claim. TG_NONE stays empty.
local TG, TG_NONE = {}, {}
local TG_IDS, TG_GONE, TG_ORDER, TG_RUN, TG_TOOK, TG_AFTER = {}, {}, {}, {}, {}, {}

-- cleared empties map m and returns it.
local function cleared(m)
  for k in pairs(m) do m[k] = nil end
  return m
end

-- pass_size returns how many members of the rotation the next pass
-- visits, to take want jobs, after a pass over pm members that gave pg
-- jobs (pm nil for the first pass): want / QUANTUM, rounded up, at first;
-- then want divided by what a member gave in the last pass, at least one
-- and at most QUANTUM. So a claim over groups of one or two ready jobs
-- each (many tenants with a job or two) takes them in two passes, not in
-- a pass per few jobs (memstore's passSize sizes its turns the same way).
local function pass_size(want, pm, pg)
  if not pm or pg >= pm * QUANTUM then return math.ceil(want / QUANTUM) end
  if pg < pm then pg = pm end
  return math.ceil(want * pm / pg)
end

-- take_pass takes one pass over the next pass_size members of the
-- rotation, an equal share of what the claim still wants from each, and
-- puts them back: at the end those that keep their turn, at the front
-- those the claim had no room for; the others leave it. It returns false
-- when the rotation is empty.
local function take_pass(t, n, now)
  local want = n - #t.ids
  local asked = pass_size(want, t.pm, t.pg)
  local members = rcall('LPOP', K.g_rot, SMALL[asked] or str(asked))
  if not members then
    t.left = 0
    return false
  end
  t.left = #members < asked and 0 or nil
  local share = math.ceil(want / #members)
  t.held = t.holding and holds_held(members, now) or TG_NONE
  if t.capped then
    local unknown = {}
    for _, g in ipairs(members) do
      if g ~= '' and t.run[g] == nil then unknown[#unknown + 1] = g end
    end
    for g, r in pairs(running_of(unknown)) do t.run[g] = r end
  end
  t.back, t.out = kept_trim(TP_BACK, 0), kept_trim(TP_OUT, 0)
  t.front, t.taken = kept_trim(TP_FRONT, 0), kept_trim(TP_TAKEN, 0)
  local before = #t.ids
  if t.fast and not t.holding then
    take_fast(t, members, share, n)
  else
    for _, g in ipairs(members) do
      local keep = take_member(t, g, share, n, now)
      if keep then t.back[#t.back + 1] = g elseif keep == false then t.out[#t.out + 1] = g end
    end
  end
  t.pm, t.pg = #members, #t.ids - before
  group_drop(t.taken)
  if #t.out > 0 then call_chunked('SREM', K.g_inrot, t.out, 1) end
  if #t.back > 0 then t.left = call_chunked('RPUSH', K.g_rot, t.back, 1) end
  if #t.front > 0 then t.left = call_chunked('LPUSH', K.g_rot, reversed(t.front), 1) end
  return true
end

-- take_grouped takes up to n ready IDs, rotating over the members of the
-- rotation (take_pass), a group only while it has room under its cap and
-- its rate limit; with caps it raises the groups' running counts. Cost:
-- per pass one LPOP of the rotation (with caps one HMGET of running
-- counts), per member one LPOP of its list (and a range and a removal
-- while the sorted set of layout 1 holds jobs); per call an EXISTS of the
-- holds and own caps, one of that sorted set, an HINCRBY of the lists'
-- count, an SREM of the groups found empty, an SREM and an RPUSH of the
-- rotation (with caps one HSET of running counts); nothing per job. It
-- returns the IDs, the ms until the earliest hold ends while holds remain
-- (0 otherwise: the claim's RetryIn, as no signal comes when a hold
-- ends), whether the rotation still holds members, and the waits before
-- start of the jobs a smooth rate per group
-- paced (index in the IDs -> µs).
local function take_grouped(n, now)
  -- One call tells whether the queue has holds or own caps at all: most
  -- have neither.
  local rare = rcall('EXISTS', K.g_holds, K.g_caps) > 0
  local t = TG
  t.ids, t.gone, t.order = kept_trim(TG_IDS, 0), kept_trim(TG_GONE, 0), kept_trim(TG_ORDER, 0)
  t.run, t.took, t.after = cleared(TG_RUN), cleared(TG_TOOK), cleared(TG_AFTER)
  t.lp, t.pm, t.pg, t.left, t.us, t.held = 0, nil, nil, nil, nil, nil
  t.cap, t.capped = group_caps(not rare)
  t.rate, t.period, t.iv, t.tol, t.lead = group_rate()
  t.holding = groups_unhold(now, not rare)
  t.fast = not t.capped and t.rate == 0
  while #t.ids < n and take_pass(t, n, now) do end
  GS.counted(t.lp)
  if #t.gone > 0 then call_chunked('SREM', K.g_known, t.gone, 1) end
  if t.capped and #t.order > 0 then
    local h = {}
    for _, g in ipairs(t.order) do
      h[#h + 1] = g
      h[#h + 1] = t.run[g]
    end
    call_chunked('HSET', K.g_running, h, 2)
  end
  local retry = t.holding and holds_retry(now) or 0
  local left = t.left or rotation_len()
  return t.ids, retry, left > 0, t.after
end
