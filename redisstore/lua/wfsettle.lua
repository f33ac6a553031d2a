-- wfsettle.lua: on one server (see workflow.go), the tasks a step of a
-- workflow released, enqueued in the same step when their jobs go to the
-- script's queue, for wf/local.lua and wf_add_local.lua. The others are
-- left being released (wf_rel) for the caller to enqueue and confirm, and
-- the workflow marked for a sweeper to look at after WF_LEASE (wfi_steps,
-- "<workflow>~<the first of them>"),
-- as workflow.go's markCheck does: a process that dies before it enqueued
-- them leaves them to the sweeper.
--- @include wfgraph/flow wfrel wfindex
--- @keys wfi_steps

-- local_serves reports whether this variant's ready slot serves a job
-- with envelope val (as an enqueue sends it): one with a group needs the
-- slot of G, one with a priority that of P or G.
local function local_serves(val)
  local c = string.match(val, '^%d+([pg])')
  if not c then return true end
  if c == 'g' then return string.find(SHAPE, 'G', 1, true) ~= nil end
  return string.find(SHAPE, '[PG]') ~= nil
end

-- local_settle's lists, kept (base.lua's kept_trim, written out: a Lua
-- call costs about a thousand instructions): a finish settles one
-- workflow after the other, a chain's task each. ls_one holds the
-- payload of the one task such a step releases, read with HGET.
local ls_list, ls_mine, ls_other, ls_one = {}, {}, {}, {}

-- local_settle takes the tasks the open workflow wf released: those this
-- step enqueues into acc, the others into rel (returned as wf, task,
-- queue, payload).
local function local_settle(wf, acc, rel, now)
  local nr = #released
  if nr == 0 then return wf_index(wf) end
  local list, mine, other = ls_list, ls_mine, ls_other
  for i = #list, 1, -1 do list[i] = nil end
  for i = #mine, 1, -1 do mine[i] = nil end
  for i = #other, 1, -1 do other[i] = nil end
  local n = 0
  for i = 1, nr do
    local t = released[i]
    if st_cache[t] == 'e' then
      n = n + 1
      list[n] = t
    end
  end
  local pl
  local pls, kept = WM.pls, nil
  if pls then
    pl, kept = {}, {}
    local need, at = {}, {}
    for i = 1, n do
      local v = pls[list[i]]
      if v then pl[i] = v else need[#need + 1], at[#at + 1] = list[i], i end
    end
    if #need > 0 then
      local got = call_chunked_flat('HMGET', WK.p, need)
      for j = 1, #need do pl[at[j]] = got[j] end
    end
  elseif n == 1 then
    pl = ls_one
    pl[1] = rcall('HGET', WK.p, list[1])
  else
    pl = call_chunked_flat('HMGET', WK.p, list)
  end
  for i = 1, n do
    local v, t = pl[i], list[i]
    if v then
      local bar = find(v, '|', 1, true)
      local q, val = info_queue(t), sub(v, bar + 1)
      local added = pls and pls[t]
      if q == QUEUE and local_serves(val) then
        -- mine: the payloads read from p, taken out of it
        if not added then mine[#mine + 1] = t end
        acc.ids[#acc.ids + 1], acc.dues[#acc.dues + 1], acc.vals[#acc.vals + 1] = wf .. '~' .. t, sub(v, 1, bar - 1), val
      else
        other[#other + 1] = t
        rel[#rel + 1], rel[#rel + 2], rel[#rel + 3], rel[#rel + 4] = wf, t, q, v
        -- Left being released: its payload in p, for a sweeper.
        if added then kept[#kept + 1], kept[#kept + 2] = t, v end
      end
    end
  end
  if kept and #kept > 0 then call_chunked('HSET', WK.p, kept, 2) end
  if #mine == 1 then
    rcall('HDEL', WK.p, mine[1])
  elseif #mine > 0 then
    call_chunked('HDEL', WK.p, mine, 1)
  end
  if #other > 0 then
    call_chunked('SADD', WK.rel, other, 1)
    -- This step's mark (workflow.go's chkMark): the first task it left.
    rcall('ZADD', K.wfi_steps, now + WF_LEASE, wf .. '~' .. other[1])
  end
  wf_index(wf)
end
