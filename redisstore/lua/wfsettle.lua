-- wfsettle.lua: on one server (see workflow.go), the tasks a step of a
-- workflow released, enqueued in the same step when their jobs go to the
-- script's queue, for wf/local.lua and wf_add_local.lua. The others are
-- left being released (wf_rel) for the caller to enqueue and confirm, and
-- the workflow marked for a sweeper to look at after WF_LEASE (wfi_chk),
-- as workflow.go's markCheck does: a process that dies before it enqueued
-- them leaves them to the sweeper.
--- @include wfgraph/flow wfrel wfindex
--- @keys wfi_chk

-- local_serves reports whether this variant's ready slot serves a job
-- with envelope val (as an enqueue sends it): one with a group needs the
-- slot of G, one with a priority that of P or G.
local function local_serves(val)
  local c = string.match(val, '^%d+([pg])')
  if not c then return true end
  if c == 'g' then return string.find(SHAPE, 'G', 1, true) ~= nil end
  return string.find(SHAPE, '[PG]') ~= nil
end

-- local_settle's lists, kept (base.lua's kept_trim): a finish settles one
-- workflow after the other, a chain's task each.
local ls_list, ls_mine, ls_other = {}, {}, {}

-- local_settle takes the tasks the open workflow wf released: those this
-- step enqueues into acc, the others into rel (returned as wf, task,
-- queue, payload).
local function local_settle(wf, acc, rel, now)
  if #released == 0 then return wf_index(wf) end
  local list, mine, other = kept_trim(ls_list, 0), kept_trim(ls_mine, 0), kept_trim(ls_other, 0)
  for _, t in ipairs(released) do
    if st_cache[t] == 'e' then list[#list + 1] = t end
  end
  local pl = call_chunked_flat('HMGET', WK.p, list)
  for i = 1, #list do
    local v, t = pl[i], list[i]
    if v then
      local bar = string.find(v, '|', 1, true)
      local q, val = info_queue(t), string.sub(v, bar + 1)
      if q == QUEUE and local_serves(val) then
        mine[#mine + 1] = t
        acc.ids[#acc.ids + 1], acc.dues[#acc.dues + 1], acc.vals[#acc.vals + 1] = wf .. '~' .. t, string.sub(v, 1, bar - 1), val
      else
        other[#other + 1] = t
        rel[#rel + 1], rel[#rel + 2], rel[#rel + 3], rel[#rel + 4] = wf, t, q, v
      end
    end
  end
  if #mine > 0 then call_chunked('HDEL', WK.p, mine, 1) end
  if #other > 0 then
    call_chunked('SADD', WK.rel, other, 1)
    redis.call('ZADD', K.wfi_chk, now + WF_LEASE, wf)
  end
  wf_index(wf)
end
