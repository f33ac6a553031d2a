-- lib_group.lua: groups of a queue (store.NewJob.Group), for every script
-- that adds to, takes from or reads ready (needs lib_prio.lua).
--
-- A grouped job waits in its group's list {p:q}:g:<group> instead of the
-- ready list. Beside them, in the queue's slot:
--
--   {p:q}:gq  list  the rotation: groups due a turn, '' standing for the
--                   queue's ungrouped jobs; each at most once
--   {p:q}:ga  set   the members of gq
--   {p:q}:gr  hash  group -> its jobs in unack, kept only while the queue
--                   has caps (gmax or own caps): recounted from unack
--                   when the first cap comes, dropped with the last
--   {p:q}:gk  set   groups whose list may hold jobs (for listing)
--   {p:q}:gl  hash  group -> its own cap (store.Groups.SetGroupLimit)
--   {p:q}:gh  zset  group -> when its hold ends: a group held (its rate
--                   limit used, or a handler's RateLimited) is out of the
--                   rotation until then; the first claim after puts it
--                   back
--   {p:q}:gw:<group>  list  the group's rate limit log (lib_rate.lua),
--                   and {p:q}:gws hash group -> the sum it counts; a
--                   claim of the group trims them, and Maintain forgets
--                   those of groups gone quiet (groups_rate_sweep, config
--                   field gwc its cursor)
--
-- and the config fields gm (set once the queue saw a grouped job: claims
-- rotate from then on) and gmax (the cap per group). A member of gq may
-- have lost its jobs or its room since it was added: the claim that
-- meets it drops it. A group with ready jobs and room is always in gq:
-- it joins when jobs are pushed to it, when one of its jobs leaves unack
-- and when its cap is raised, and leaves only when a claim finds it empty
-- or at its cap. The job's group is in its value:
-- "<enqueuedMs>,<maxRetries>g<group>,...".

-- RATE_SWEEP is how many groups' rate logs groups_rate_sweep looks at in
-- one pass (HSCAN's COUNT: a hint), once a minute: about 4 ms of Redis
-- when all of them are dropped (measured over 20,000 stale groups), so
-- up to 720,000 groups a day. Groups that come and go faster than that
-- keep their logs longer, until the sweep comes round.
local RATE_SWEEP = 500

-- QUANTUM is the most jobs a group gives one claim per turn when the
-- claim has enough members to share among (memstore's groupQuantum).
local QUANTUM = 4

ext_build = function()
  -- prio_of returns the priority of a stored value (0 for nil).
  local function prio_of(v)
    if not v then return 0 end
    return tonumber(string.match(v, '^%d+,%d+p(%-?%d),')) or 0
  end

  -- prio_of_new returns the priority of a value as an enqueue sends it,
  -- "<maxRetries>[p<priority>],...".
  local function prio_of_new(v)
    return tonumber(string.match(v, '^%d+p(%-?%d),')) or 0
  end

  -- levels returns the priorities whose lists may hold jobs, highest (the
  -- first claimed) first.
  local function levels(pm)
    if not has_levels(pm) then return {0} end
    local m, out = tonumber(pm), {}
    for p = MAX_PRIO, MIN_PRIO, -1 do
      if p == 0 or bit.band(m, 2 ^ (p - MIN_PRIO)) ~= 0 then out[#out + 1] = p end
    end
    return out
  end

  -- level_lists returns the keys of the priority levels' lists, highest
  -- (the first claimed) first.
  local function level_lists(ready, pm)
    local keys = {}
    for _, p in ipairs(levels(pm)) do keys[#keys + 1] = ready_at(ready, p) end
    return keys
  end

  -- ready_len returns how many jobs are ready, over every level.
  local function levels_len(ready, pm)
    local n = 0
    for _, p in ipairs(levels(pm)) do n = n + redis.call('LLEN', ready_at(ready, p)) end
    return n
  end

  -- pop_ready takes up to n ready IDs in claim order: the highest priority
  -- first, first in first out within one. It returns false when none: one
  -- LPOP per level tried, whatever n.
  local function levels_pop(ready, pm, n)
    local ids, k = {}, 0
    for _, p in ipairs(levels(pm)) do
      local got = redis.call('LPOP', ready_at(ready, p), n - k)
      if got then
        for i = 1, #got do ids[k + i] = got[i] end
        k = k + #got
        if k == n then break end
      end
    end
    if k == 0 then return false end
    return ids
  end

  -- mark_levels adds the priorities that are keys of ps to the config's
  -- bitmask (current value pm), writing it only when it changes, and
  -- returns the new mask.
  local function mark_levels(conf, pm, ps)
    local m = tonumber(pm) or 0
    local m2 = m
    for p in pairs(ps) do
      if p ~= 0 then m2 = bit.bor(m2, 2 ^ (p - MIN_PRIO)) end
    end
    if m2 ~= m then redis.call('HSET', conf, 'pm', m2) end
    return m2
  end

  -- gkey returns the key of the queue's group structure suffix, from its
  -- ready list's key "{p:q}:r".
  local function gkey(ready, suffix)
    return string.sub(ready, 1, -2) .. suffix
  end

  -- glist returns the key of group g's ready list.
  local function glist(ready, g)
    return string.sub(ready, 1, -2) .. 'g:' .. g
  end

  -- group_of returns the group of a stored value, or nil.
  local function group_of(v)
    if not v then return nil end
    return string.match(v, '^%d+,%d+g([^,]+),')
  end

  -- group_of_new returns the group of a value as an enqueue sends it, or nil.
  local function group_of_new(v)
    return string.match(v, '^%d+g([^,]+),')
  end

  -- ready_list_of returns the list a ready job with stored value v is in.
  local function ready_list_of(ready, v)
    local g = group_of(v)
    if g then return glist(ready, g) end
    return ready_at(ready, prio_of(v))
  end

  -- group_activate puts g ('' for the ungrouped jobs) in the rotation
  -- unless it is there; it returns true when it added it.
  local function group_activate(ready, g)
    if redis.call('SADD', gkey(ready, 'ga'), g) == 1 then
      redis.call('RPUSH', gkey(ready, 'gq'), g)
      return true
    end
    return false
  end

  -- groups_on marks the queue grouped (config hash conf, field gm) when it
  -- is not yet (gm is the field's value), the ungrouped jobs joining the
  -- rotation.
  local function groups_on(ready, conf, gm, pm)
    if gm then return end
    redis.call('HSET', conf, 'gm', '1')
    if ready_len(ready, pm) > 0 then group_activate(ready, '') end
  end

  -- push_group puts ids at the back (front with front) of group g's list
  -- and g in the rotation; it returns true when g joined the rotation (a
  -- group already in it is being claimed from).
  local function push_group(ready, g, ids, front)
    call_chunked(front and 'LPUSH' or 'RPUSH', glist(ready, g), ids, 1)
    redis.call('SADD', gkey(ready, 'gk'), g)
    return group_activate(ready, g)
  end

  -- group_caps returns a function giving group g's cap (0 for none): its
  -- own, else the queue's gmax; and whether any group may have a cap. It
  -- reads the own caps only when there are; with none the caller knows
  -- there are none.
  local function group_caps(ready, gmax, none)
    local def = tonumber(gmax) or 0
    local gl = gkey(ready, 'gl')
    if none or redis.call('HLEN', gl) == 0 then
      return function() return def end, def > 0
    end
    local seen = {}
    return function(g)
      local c = seen[g]
      if c == nil then
        c = tonumber(redis.call('HGET', gl, g)) or def
        seen[g] = c
      end
      return c
    end, true
  end

  -- groups_capped reports whether the queue has a cap per group (gmax) or
  -- a group with a cap of its own: only then are running counts kept.
  local function groups_capped(ready, gmax)
    return (tonumber(gmax) or 0) > 0 or redis.call('HLEN', gkey(ready, 'gl')) > 0
  end

  -- running_now counts the jobs in unack of each group, from the unack set
  -- and the jobs' values: O(jobs running).
  local function running_now(ready)
    local members = redis.call('ZRANGE', gkey(ready, 'u'), '-inf', '(inf', 'BYSCORE')
    local counts = {}
    if #members == 0 then return counts end
    local ids = {}
    for i = 1, #members do ids[i] = string.match(members[i], '^(.*)|%d+$') end
    local vals = call_chunked_flat('HMGET', gkey(ready, 'j'), ids)
    for i = 1, #vals do
      local g = group_of(vals[i])
      if g then counts[g] = (counts[g] or 0) + 1 end
    end
    return counts
  end

  -- groups_recount makes the running counts right after the queue's caps
  -- changed: counted afresh from unack when it has caps, dropped when not.
  local function groups_recount(ready, gmax)
    local gr = gkey(ready, 'gr')
    redis.call('DEL', gr)
    if not groups_capped(ready, gmax) then return end
    local h = {}
    for g, n in pairs(running_now(ready)) do
      h[#h + 1] = g
      h[#h + 1] = n
    end
    if #h > 0 then call_chunked('HSET', gr, h, 2) end
  end

  -- group_hold keeps group g out of the rotation until ms untl (a hold in
  -- force is never shortened).
  local function group_hold(ready, g, untl)
    redis.call('ZADD', gkey(ready, 'gh'), 'GT', untl, g)
  end

  -- groups_unhold puts the groups whose hold ended by now back in the
  -- rotation, and returns whether holds remain; with none the caller knows
  -- there are none.
  local function groups_unhold(ready, now, none)
    local gh = gkey(ready, 'gh')
    if none or redis.call('ZCARD', gh) == 0 then return false end
    local over = redis.call('ZRANGEBYSCORE', gh, '-inf', now)
    if #over == 0 then return true end
    call_chunked('ZREM', gh, over, 1)
    for _, g in ipairs(over) do group_activate(ready, g) end
    return redis.call('ZCARD', gh) > 0
  end

  -- groups_rate_sweep forgets the rate logs of groups whose last counted
  -- claim has left the window (period ms; 0 when the queue no longer has
  -- a rate per group): only a claim of the group trims its log, so a
  -- group no longer claimed from would keep its log and its sum for good,
  -- one key per group ever seen. One pass looks at about RATE_SWEEP groups
  -- from cursor (the config field gwc of hash conf, which it advances):
  -- an HSCAN, and an LINDEX per group.
  local function groups_rate_sweep(ready, conf, cursor, now, period)
    local gws = gkey(ready, 'gws')
    cursor = cursor or '0'
    local r = redis.call('HSCAN', gws, cursor, 'COUNT', RATE_SWEEP)
    local fields, drop, logs = r[2], {}, {}
    for i = 1, #fields, 2 do
      local g = fields[i]
      local log = gkey(ready, 'gw:' .. g)
      local last = redis.call('LINDEX', log, -1)
      if not last or rate_entry(last) + period <= now then
        drop[#drop + 1] = g
        logs[#logs + 1] = log
      end
    end
    if #drop > 0 then
      call_chunked('HDEL', gws, drop, 1)
      for _, log in ipairs(logs) do redis.call('DEL', log) end
    end
    if r[1] ~= cursor then
      if r[1] == '0' then redis.call('HDEL', conf, 'gwc') else redis.call('HSET', conf, 'gwc', r[1]) end
    end
  end

  -- running_of returns the running counts of groups gs (a list) as a table,
  -- in one HMGET.
  local function running_of(gr, gs)
    local out = {}
    if #gs == 0 then return out end
    local got = call_chunked_flat('HMGET', gr, gs)
    for i = 1, #gs do out[gs[i]] = tonumber(got[i]) or 0 end
    return out
  end

  -- take_grouped takes up to n ready IDs, rotating over the members of the
  -- rotation: in each pass over ceil(want / QUANTUM) members an equal share
  -- of what the claim still wants from each (so at most QUANTUM when there
  -- are enough members), a group only while it has room under its cap. A group stays in the rotation after its turn unless its
  -- cap is reached; one found empty leaves it. With caps it raises the
  -- groups' running counts. Cost: per pass one LPOP of the rotation (and
  -- with caps one HMGET of running counts), per member one LPOP of its
  -- list (a quarter of a call per job with many groups); per call an
  -- EXISTS of the holds and own caps, an SREM of the groups found empty,
  -- an SREM and an RPUSH of the rotation (and with caps one HSET of
  -- running counts); nothing per job.
  --
  -- With a rate limit per group (rate claims per period ms) each group's
  -- share is also what its window allows; a group that used it all is held
  -- (group_hold) until its oldest counted claim leaves the window. A held
  -- group is skipped and leaves the rotation. It returns the IDs and, while
  -- holds remain, the ms until the earliest ends (0 otherwise): the claim's
  -- RetryIn, as no signal comes when a hold ends. Its third result says
  -- whether the rotation still holds members.
  local function take_grouped(ready, pm, n, gmax, now, rate, period)
    local gq, ga, gr, gk = gkey(ready, 'gq'), gkey(ready, 'ga'), gkey(ready, 'gr'), gkey(ready, 'gk')
    local gh, gws, gl = gkey(ready, 'gh'), gkey(ready, 'gws'), gkey(ready, 'gl')
    -- One call tells whether the queue has holds or own caps at all: most
    -- have neither.
    local rare = redis.call('EXISTS', gh, gl) > 0
    local cap, capped = group_caps(ready, gmax, not rare)
    rate, period = tonumber(rate) or 0, tonumber(period) or 1000
    local holding = groups_unhold(ready, now, not rare)
    local fast, gb = not capped and rate == 0, string.sub(ready, 1, -2) .. 'g:'
    local ids, run, took, order, gone = {}, {}, {}, {}, {}
    -- left: the rotation's length after the last pass, when known.
    local left
    while #ids < n do
      -- Turns over ceil(want / QUANTUM) members, sharing want among them.
      local want = n - #ids
      local asked = math.ceil(want / QUANTUM)
      local members = redis.call('LPOP', gq, asked)
      if not members then
        left = 0
        break
      end
      left = #members < asked and 0 or nil
      local share = math.ceil(want / #members)
      local held = {}
      if holding then
        local until_ = call_chunked_flat('ZMSCORE', gh, members)
        for i, g in ipairs(members) do
          if until_[i] and tonumber(until_[i]) > now then held[g] = true end
        end
      end
      if capped then
        local unknown = {}
        for _, g in ipairs(members) do
          if g ~= '' and run[g] == nil then unknown[#unknown + 1] = g end
        end
        for g, r in pairs(running_of(gr, unknown)) do run[g] = r end
      end
      local back, out, front = {}, {}, {}
      if fast and not holding then
        -- No caps, rate limits or holds: one LPOP per member, nothing
        -- else per job.
        local nids = #ids
        for _, g in ipairs(members) do
          local k = math.min(share, n - nids)
          local got
          if k > 0 then
            if g == '' then got = pop_ready(ready, pm, k) else got = redis.call('LPOP', gb .. g, k) end
          end
          if got then
            for i = 1, #got do ids[nids + i] = got[i] end
            nids = nids + #got
          end
          -- Fewer than asked: the group's list is empty now.
          if k > 0 and g ~= '' and (not got or #got < k) then
            gone[#gone + 1] = g
          end
          if k == 0 then
            front[#front + 1] = g -- no room left in the claim: its turn stays first
          elseif got and #got == k then
            back[#back + 1] = g
          else
            out[#out + 1] = g
          end
        end
        members = {}
      end
      for _, g in ipairs(members) do
        local keep = false
        local room = n - #ids
        if room == 0 then
          front[#front + 1] = g -- no room left in the claim: its turn stays first
          keep = nil
        elseif g == '' then
          local k = math.min(share, room)
          local got = pop_ready(ready, pm, k)
          if got then
            for i = 1, #got do ids[#ids + 1] = got[i] end
            keep = #got == k
          end
        elseif not held[g] then
          local c, r = cap(g), run[g] or 0
          local k = math.min(share, room)
          if c > 0 then k = math.min(k, c - r) end
          local used, log
          if rate > 0 and k > 0 then
            local free
            log = gkey(ready, 'gw:' .. g)
            used, free = rate_trim_in(log, gws, g, redis.call('HGET', gws, g), now, period)
            if used >= rate then
              group_hold(ready, g, free or (now + period))
              holding = true
              k = 0
            else
              k = math.min(k, rate - used)
            end
          end
          if k > 0 then
            local got = redis.call('LPOP', glist(ready, g), k)
            if got and log then rate_note_in(log, gws, g, used, now, #got) end
            if got then
              for i = 1, #got do ids[#ids + 1] = got[i] end
              if not took[g] then
                took[g] = 0
                order[#order + 1] = g
              end
              took[g] = took[g] + #got
              r = r + #got
              keep = #got == k and (c == 0 or r < c)
              if #got < k then gone[#gone + 1] = g end -- its list is empty now
            else
              gone[#gone + 1] = g
            end
          end
          run[g] = r
        end
        if keep then
          back[#back + 1] = g
        elseif keep == false then
          out[#out + 1] = g
        end
      end
      if #out > 0 then call_chunked('SREM', ga, out, 1) end
      if #back > 0 then left = call_chunked('RPUSH', gq, back, 1) end
      if #front > 0 then
        local rev = {}
        for i = #front, 1, -1 do rev[#rev + 1] = front[i] end
        left = call_chunked('LPUSH', gq, rev, 1)
      end
    end
    if #gone > 0 then call_chunked('SREM', gk, gone, 1) end
    if capped and #order > 0 then
      local h = {}
      for _, g in ipairs(order) do
        h[#h + 1] = g
        h[#h + 1] = run[g]
      end
      call_chunked('HSET', gr, h, 2)
    end
    local retry = 0
    if holding then
      local e = earliest(gh)
      if e then retry = math.max(e - now, 1) end
    end
    if left == nil then left = redis.call('LLEN', gq) end
    return ids, retry, left > 0
  end

  -- groups_ended, in a queue with caps (see groups_capped), lowers the
  -- running counts of the groups whose jobs left unack (vals: their stored
  -- values) and puts those with ready jobs that are out of the rotation
  -- back in it: their cap may have held them out. It returns true when one
  -- rejoined (a claim is worth waking). Per call an HMGET and an HSET of
  -- running counts, an SMISMEMBER, an SADD and an RPUSH of the rotation.
  local function groups_ended(ready, vals, gmax)
    local by, gs = {}, {}
    for i = 1, #vals do
      local g = group_of(vals[i])
      if g then
        if not by[g] then
          by[g] = 0
          gs[#gs + 1] = g
        end
        by[g] = by[g] + 1
      end
    end
    if #gs == 0 then return false end
    local gr = gkey(ready, 'gr')
    local run = running_of(gr, gs)
    local h, zero = {}, {}
    for _, g in ipairs(gs) do
      local r = run[g] - by[g]
      if r > 0 then
        h[#h + 1] = g
        h[#h + 1] = r
      else
        zero[#zero + 1] = g
      end
    end
    if #h > 0 then call_chunked('HSET', gr, h, 2) end
    if #zero > 0 then call_chunked('HDEL', gr, zero, 1) end
    -- Back in the rotation, those out of it (a claim drops one that turns
    -- out empty).
    local ga = gkey(ready, 'ga')
    local inrot = call_chunked_flat('SMISMEMBER', ga, gs)
    local add = {}
    for i, g in ipairs(gs) do
      if inrot[i] == 0 then add[#add + 1] = g end
    end
    if #add == 0 then return false end
    call_chunked('SADD', ga, add, 1)
    call_chunked('RPUSH', gkey(ready, 'gq'), add, 1)
    return true
  end

  -- first_in_order returns the first k of names (all with k nil) in
  -- order, by name (descending with desc), and whether those are all of
  -- them. For k well below #names it makes one pass keeping the best k,
  -- about one comparison a name, instead of sorting them all: the first
  -- page of a listing over 100,000 groups costs a quarter of a sort.
  local function first_in_order(names, k, desc)
    local before
    if desc then before = function(a, b) return a > b end else before = function(a, b) return a < b end end
    if not k or k * 4 >= #names then
      table.sort(names, before)
      return names, true
    end
    local best, nb = {}, 0
    for _, g in ipairs(names) do
      if nb < k or before(g, best[nb]) then
        local lo, hi = 1, nb + 1
        while lo < hi do
          local mid = math.floor((lo + hi) / 2)
          if before(g, best[mid]) then hi = mid else lo = mid + 1 end
        end
        table.insert(best, lo, g)
        if nb == k then best[k + 1] = nil else nb = nb + 1 end
      end
    end
    return best, false
  end

  -- group_names returns the first k (all with k nil) of the groups whose
  -- lists may hold jobs, by name (descending with desc), and whether
  -- those are all of them (first_in_order).
  local function group_names(ready, k, desc)
    return first_in_order(redis.call('SMEMBERS', gkey(ready, 'gk')), k, desc)
  end

  -- ready_lists returns the keys of the lists that may hold ready jobs, in
  -- listing order (the priority levels, highest first, then each group's
  -- by group name), the group of each group list's key position (nil for
  -- a level), and whether those are all: with k, only the first k groups'
  -- (group_names).
  local function ready_lists(ready, pm, k)
    local keys, groups = level_lists(ready, pm), {}
    local names, complete = group_names(ready, k)
    for _, g in ipairs(names) do
      keys[#keys + 1] = glist(ready, g)
      groups[#keys] = g
    end
    return keys, groups, complete
  end

  -- push_routed is push_ready's work for a queue with priority levels
  -- or groups: it reads the jobs' values and puts each in its list.
  local function push_routed(ready, jobs, pm, gm, ids, front)
    local cmd = front and 'LPUSH' or 'RPUSH'
    local vals = call_chunked_flat('HMGET', jobs, ids)
    local by, order = {}, {}
    for i = 1, #ids do
      local g = group_of(vals[i])
      local k = g and ('g' .. g) or prio_of(vals[i])
      local b = by[k]
      if not b then
        b = {g = g, p = prio_of(vals[i]), ids = {}}
        by[k] = b
        order[#order + 1] = k
      end
      b.ids[#b.ids + 1] = ids[i]
    end
    local woke = false
    for _, k in ipairs(order) do
      local b = by[k]
      if b.g then
        if push_group(ready, b.g, b.ids, front) then woke = true end
      else
        if call_chunked(cmd, ready_at(ready, b.p), b.ids, 1) == #b.ids then woke = true end
        if gm and group_activate(ready, '') then woke = true end
      end
    end
    return woke
  end

  return {
    push_routed = push_routed,
    prio_of = prio_of,
    prio_of_new = prio_of_new,
    levels = levels,
    level_lists = level_lists,
    levels_len = levels_len,
    levels_pop = levels_pop,
    mark_levels = mark_levels,
    gkey = gkey,
    glist = glist,
    group_of = group_of,
    group_of_new = group_of_new,
    ready_list_of = ready_list_of,
    group_activate = group_activate,
    groups_on = groups_on,
    push_group = push_group,
    group_caps = group_caps,
    groups_capped = groups_capped,
    running_now = running_now,
    groups_recount = groups_recount,
    group_hold = group_hold,
    groups_unhold = groups_unhold,
    groups_rate_sweep = groups_rate_sweep,
    running_of = running_of,
    take_grouped = take_grouped,
    groups_ended = groups_ended,
    group_names = group_names,
    first_in_order = first_in_order,
    ready_lists = ready_lists,
  }
end

-- push_ready puts ids, jobs that became ready, at the back of their lists
-- (at the front with front, for one ID), in order within each list: a
-- group's, or their priority level's. It reads the jobs' values only when
-- the queue has priority levels (pm) or groups (gm). It returns true when
-- a list they went to was empty or a group joined the rotation (the cue to
-- wake idle workers).
local function push_ready(ready, jobs, pm, gm, ids, front)
  if #ids == 0 then return false end
  if not has_levels(pm) and not gm then return call_chunked(front and 'LPUSH' or 'RPUSH', ready, ids, 1) == #ids end
  return ext().push_routed(ready, jobs, pm, gm, ids, front)
end
