-- lib_depth.lua: the depth of a queue's ready jobs, for QueueStats and the
-- once-a-minute sample of Maintain (needs lib_group.lua and lib_att.lua).

-- ready_depth returns how many jobs of the queue with ready list ready
-- (config field pm) are ready, over its priority levels and groups, and
-- when the oldest of them fell due (Unix ms, 0 when none): a head fell
-- due when it was promoted or released (its attempt info) or else when it
-- was enqueued (its value's prefix). An LLEN per ready list, and an
-- LINDEX and an HGET or two per list that holds jobs. With ungrouped (the
-- queue never had groups: config field gm unset) the groups' lists are
-- not looked for, which spares an SMEMBERS.
local function ready_depth(ready, pm, jobs, att, ungrouped)
  local n, oldest = 0, 0
  local lists
  if ungrouped and not has_levels(pm) then
    lists = {ready}
  else
    lists = ext().ready_lists(ready, pm)
  end
  for _, l in ipairs(lists) do
    local len = redis.call('LLEN', l)
    n = n + len
    local head = len > 0 and redis.call('LINDEX', l, 0)
    if head then
      local since = 0
      local _, _, _, r = parse_att(redis.call('HGET', att, head))
      if r ~= '' then
        since = tonumber(r)
      else
        local v = redis.call('HGET', jobs, head)
        if v then since = tonumber(string.match(v, '^(%d+),')) or 0 end
      end
      if oldest == 0 or since < oldest then oldest = since end
    end
  end
  return n, oldest
end
