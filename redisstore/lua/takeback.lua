-- takeback.lua: take back the jobs of a claim whose reply its claimer never
-- read (takeback.go): those still in unack under the claim, with their
-- leases renewed, as claim.lua would have returned them.
--- @flags allow-oom
--- @include claimed
--
-- ARGV: 1 the claimer, 2 the slot of the claim's note and 3 its seq
-- (claimed.lua: claim_note), 4 lease ms, 5 max, then the IDs of the claim
-- already taken back.
-- Returns take_back's reply: claim.lua's, its first value the
-- claim's time (when the jobs' attempts began), its token the claim's and
-- its StartWithin the rate limit's guard (0 without a rate limit);
-- {nowMs, 0, 0, 0, 0} when the claim has no job left in unack that was
-- not taken back. {'none'} when the slot holds no note: the claim has not
-- reached the server (yet: a claim held up on the way may come after the
-- take-back), never will, or its lease ended (maintain.lua then took its
-- jobs back to ready or retry). {'other', seq} when the slot holds the
-- note of another claim of the claimer, seq.
--
-- Cost: GET; with the claim's note, TIME and ZRANGEBYSCORE of its deadline; with jobs, ZADD
-- XX, SET of the note, HMGET of their values and attempts (and errors
-- of jobs attempted before), and HGET of the rate limit's guard.

-- take_back returns, in claim.lua's reply, up to max jobs of the claim of
-- note (claim_note's, in key) still in unack under it, but those in taken
-- (a set of IDs); its first value is the claim's time and its token the
-- claim's. It renews the lease of every job of the claim still in unack,
-- not only of those it returns, to deadline (lease ms from now), and the
-- note says the new deadline: a take-back whose own reply is lost, or
-- that leaves jobs for the next, finds them all again. nil when it finds
-- no job to return.
local function take_back(key, note, deadline, lease, max, taken)
  local seq, tok, claimed, dl = string.match(note, '^(%d+)|(%d+)|(%d+)|(%d+)$')
  if not tok then return nil end
  local suffix = '|' .. tok
  -- Every job of the claim has its deadline; other claims of that
  -- millisecond have other tokens.
  local members = rcall('ZRANGEBYSCORE', K.unack, dl, dl)
  local ids, z, n, nz = {}, {}, 0, 0
  for _, m in ipairs(members) do
    if string.sub(m, -#suffix) == suffix then
      z[nz + 1], z[nz + 2], nz = deadline, m, nz + 2
      local id = string.sub(m, 1, #m - #suffix)
      if n < max and not taken[id] then
        n = n + 1
        ids[n] = id
      end
    end
  end
  if nz == 0 then return nil end
  -- XX: never re-adds a member that left unack.
  local i = 1
  while i <= nz do
    local j = math.min(nz, i + CHUNK - 1)
    rcall('ZADD', K.unack, 'XX', unpack(z, i, j))
    i = j + 1
  end
  rcall('SET', key, seq .. '|' .. tok .. '|' .. claimed .. '|' .. str(deadline), 'PX', lease)
  if n == 0 then return nil end
  local vals, atts, errs = claim_read(ids)
  -- Under a rate limit the claim's guard, as claim.lua gives it: the
  -- jobs were counted when the lost claim ran, long before they could
  -- start now, so the store hands them back to the queue (takeback.go).
  local rg = tonumber(rcall('HGET', K.marks, 'rg')) or 0
  local out = {tonumber(claimed), deadline, 0, tonumber(tok), rg, n}
  local ext, ne = {}, 0
  for k = 1, n do
    out[5 + 2 * k], out[6 + 2 * k] = ids[k], vals[k] or ''
    local a, _c, _t, due = parse_att(atts[k])
    if a ~= 1 or due ~= '' then
      ext[ne + 1], ext[ne + 2], ext[ne + 3], ext[ne + 4], ne = k, a, errs[k] or '', due, ne + 4
    end
  end
  local m = 7 + 2 * n
  out[m] = ne / 4
  for k = 1, ne do out[m + k] = ext[k] end
  return out
end

local key = K.unack .. ':' .. ARGV[1] .. ':' .. ARGV[2]
local note = rcall('GET', key)
if not note then return {'none'} end
local seq = string.match(note, '^(%d+)|')
if seq ~= ARGV[3] then return {'other', seq or ''} end
local now, later = now_ms()
local taken = {}
for i = 6, #ARGV do taken[ARGV[i]] = true end
return take_back(key, note, later + tonumber(ARGV[4]), ARGV[4], tonumber(ARGV[5]), taken) or {now, 0, 0, 0, 0}
