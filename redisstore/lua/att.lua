-- att.lua: attempt info (hash att, one field per job that was claimed or
-- made ready by promotion): "attempt,claimedAtMs,token,readyAtMs", any
-- part but the first may be empty.
--- @keys att

-- parse_att splits a job's attempt info (0, '', '', '' for none). The
-- ready time may hold decimals: an older release's promotion copies a
-- due time's score (kept to the µs since) as it is.
local function parse_att(v)
  if not v then return 0, '', '', '' end
  local a, c, t, r = string.match(v, '^(%d+),(%d*),(%d*),([%d.]*)$')
  return tonumber(a) or 0, c or '', t or '', r or ''
end

local function make_att(a, c, t, r)
  return str(a) .. ',' .. c .. ',' .. t .. ',' .. r
end
