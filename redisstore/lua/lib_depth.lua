-- lib_depth.lua: the depth of a queue's ready jobs, for QueueStats and the
-- once-a-minute sample of Maintain (needs lib_group.lua and lib_att.lua).

-- DEPTH_GROUPS is the most groups whose oldest job ready_depth reads: a
-- queue with more is sampled (see ready_depth), so that its cost does not
-- grow with the number of groups.
local DEPTH_GROUPS = 100

-- ready_count returns how many jobs of the queue with ready list ready
-- (config fields pm and gm) are ready. Without groups (gm unset) it sums
-- the ready lists' lengths; with them, where a list per group would cost a
-- call per group, it counts by elimination, as job_state (lib_state.lua)
-- tells a ready job: the jobs hash less pending, unack (without its
-- sentinel), retry, garbage and done, whose keys share the ready list's
-- hash tag (keys.go): six calls, one when the caller counted those states
-- already (others).
local function ready_count(ready, pm, gm, jobs, others)
  if not gm then return ready_len(ready, pm) end
  if not others then
    local k = ext().gkey
    others = redis.call('ZCOUNT', k(ready, 'u'), '-inf', '(inf')
    for _, s in ipairs({'p', 'y', 'g', 'd'}) do others = others + redis.call('ZCARD', k(ready, s)) end
  end
  return math.max(redis.call('HLEN', jobs) - others, 0)
end

-- ready_depth returns how many jobs of the queue with ready list ready
-- (config fields pm and gm) are ready (ready_count) and when the oldest of
-- them fell due (Unix ms, 0 when none): a head fell due when it was
-- promoted or released (its attempt info) or else when it was enqueued
-- (its value's prefix). It reads the head of each priority level's list
-- and of each group's, or, past DEPTH_GROUPS groups, of the first
-- DEPTH_GROUPS in the rotation (those claimed from next): then the oldest
-- is that of the jobs about to be claimed, and a group further back may
-- hold an older one. Cost: an LLEN or LINDEX per list read, and an HGET
-- or two per head. others is ready_count's.
local function ready_depth(ready, pm, gm, jobs, att, others)
  local lists = ext().level_lists(ready, pm)
  if gm then
    local gk = ext().gkey(ready, 'gk')
    local names
    if redis.call('SCARD', gk) <= DEPTH_GROUPS then
      names = redis.call('SMEMBERS', gk)
    else
      names = redis.call('LRANGE', ext().gkey(ready, 'gq'), 0, DEPTH_GROUPS - 1)
    end
    for _, g in ipairs(names) do
      if g ~= '' then lists[#lists + 1] = ext().glist(ready, g) end
    end
  end
  local oldest = 0
  for _, l in ipairs(lists) do
    local head = redis.call('LINDEX', l, 0)
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
  return ready_count(ready, pm, gm, jobs, others), oldest
end
