-- depth.lua: how many jobs of a queue are ready and when the oldest of
-- them fell due, for QueueStats and the once-a-minute sample of Maintain.
--- @include ready att
--- @keys jobs

-- ready_depth returns how many jobs are ready (ready_count) and when the
-- oldest of the lists' heads (ready_heads) fell due, in Unix ms (0 when
-- none): when it was promoted or released (its attempt info), or else
-- when it was enqueued (its value's prefix). Cost: the ready slot's, and
-- an HGET or two per head.
local function ready_depth()
  local oldest = 0
  for _, head in ipairs(ready_heads()) do
    local since = 0
    local _, _, _, r = parse_att(rcall('HGET', K.att, head))
    if r ~= '' then
      since = tonumber(r)
    else
      local v = rcall('HGET', K.jobs, head)
      if v then since = tonumber(string.match(v, '^(%d+),')) or 0 end
    end
    if oldest == 0 or since < oldest then oldest = since end
  end
  return ready_count(), oldest
end
