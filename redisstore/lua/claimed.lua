-- claimed.lua: the jobs a claim took, moved to unack with their lease and
-- token, for claim.lua.
--- @include att events kinds
--- @keys jobs unack att errs tokens
--- @marks lw sw

-- LEFT_WAKE_MS is how often at most a claim that leaves jobs behind wakes
-- the idle workers of its queue (see claim_wake).
local LEFT_WAKE_MS = 5

-- claim_read returns the stored values, attempt infos and error
-- histories of ids (histories only of jobs attempted before: only they
-- can have one).
local function claim_read(ids)
  local vals = call_chunked_flat('HMGET', K.jobs, ids)
  local atts = call_chunked_flat('HMGET', K.att, ids)
  local errs, tried = {}, {}
  for i = 1, #ids do
    if atts[i] then tried[#tried + 1] = i end
  end
  if #tried > 0 then
    local which = {}
    for k = 1, #tried do which[k] = ids[tried[k]] end
    local got = call_chunked_flat('HMGET', K.errs, which)
    for k = 1, #tried do errs[tried[k]] = got[k] end
  end
  return vals, atts, errs
end

-- claim_sched wakes the scheduler when the lease deadline is earlier than
-- every other, unless a scheduler already comes back no later than it
-- (the mark sw, written by maintain.lua) and has not let that time pass by
-- more than 10 s (a scheduler gone).
local function claim_sched(deadline, now, deadlines)
  local sw = tonumber(M.sw)
  if not sw or deadline < sw or sw < now - 10000 then
    -- Earlier than every other lease: none ends at or before it.
    if not leases_until(K.unack, deadlines) then wake_sched() end
  end
end

-- claim_note keeps which claim this call made, for takeback.lua, in a
-- key of unack's family, "<unack>:<claimer>:<slot>" (the claimer ARGV[6],
-- the slot ARGV[7], one of a few that the claimer takes in turn):
-- "seq|token|claimedMs|deadlineMs" (seq ARGV[8], the claimer's count of
-- its claims), for as long as the lease (ARGV[2]). A claim whose reply
-- the claimer never read is found through it (takeback.go). One SET a
-- claim call that took jobs; none without a claimer.
local function claim_note(tok, nows, deadlines)
  local who = ARGV[6]
  if not who or who == '' then return end
  rcall('SET', K.unack .. ':' .. who .. ':' .. ARGV[7], ARGV[8] .. '|' .. tok .. '|' .. nows .. '|' .. deadlines,
    'PX', ARGV[2])
end

-- The lease's and the attempts' arguments of claim_take: lists kept from
-- call to call (base.lua's kept_trim).
local Z_ARGS, H_ARGS = {}, {}

-- claim_take moves ids to unack with one token for the call (each call
-- takes a new value of the counter, and a job is claimed at most once per
-- call, so "id|token" is unique to this claim of this job, which is all
-- fencing needs), a lease until deadline and their attempt counted, and
-- returns the claim's reply (see claim.lua) and how many it moved. rec
-- says whether the claim's events are written (events.lua: ev_writes);
-- false for the lean claim (claim_lean.lua), which sets up no events.
local function claim_take(ids, now, deadline, worker, rec)
  local vals, atts, errs = claim_read(ids)
  local tok = str(rcall('INCR', K.tokens))
  local deadlines, nows = str(deadline), ms_str(now)
  -- Attempt info of a job never claimed nor promoted before: one string
  -- for the whole batch.
  local fresh = '1,' .. nows .. ',' .. tok .. ','
  local n = #ids
  local out = {now, deadline, 0, tonumber(tok), 0, n}
  -- The jobs claimed before (or promoted): index, attempt, errors, due.
  local ext, ne = {}, 0
  local evids, evkinds, evatts, nev = {}, {}, {}, 0
  -- The events' columns only when the step writes its entry: a queue
  -- nobody reads pays for no kind read out of each value.
  local zargs, hargs, z, h = Z_ARGS, H_ARGS, 0, 0
  for i = 1, n do
    local id, v = ids[i], vals[i]
    if v then -- an ID without a job cannot happen; skip it if it does
      local a, due = 1, ''
      if atts[i] then
        local prev, _c, _t, d = parse_att(atts[i])
        a, due = prev + 1, d
        ext[ne + 1], ext[ne + 2], ext[ne + 3], ext[ne + 4], ne = i, a, errs[i] or '', due, ne + 4
      end
      zargs[z + 1], zargs[z + 2], z = deadlines, id .. '|' .. tok, z + 2
      hargs[h + 1], h = id, h + 2
      hargs[h] = (a == 1 and due == '') and fresh or make_att(a, nows, tok, due)
      if rec then
        nev = nev + 1
        evids[nev], evkinds[nev], evatts[nev] = id, kind_of(v), a
      end
    end
    out[5 + 2 * i], out[6 + 2 * i] = id, v or ''
  end
  local m = 7 + 2 * n
  out[m] = ne / 4
  for k = 1, ne do out[m + k] = ext[k] end
  kept_trim(zargs, z)
  kept_trim(hargs, h)
  if z > 0 then
    claim_sched(deadline, now, deadlines)
    call_chunked('ZADD', K.unack, zargs, 2)
    call_chunked('HSET', K.att, hargs, 2)
    claim_note(tok, nows, deadlines)
  end
  if nev > 0 then emit_many(3, evids, nev, evkinds, evatts, worker) end
  return out, z / 2
end

-- claim_wake makes sure idle workers wake for the jobs a full claim left
-- behind, at most once per LEFT_WAKE_MS per queue (mark lw): a worker that
-- claimed a full batch claims again by itself, the message is for the
-- idle ones, and a busy queue's next claim wakes them soon enough.
local function claim_wake(now)
  if now - (tonumber(M.lw) or 0) >= LEFT_WAKE_MS then
    rcall('HSET', K.marks, 'lw', ms_str(now))
    wake_ready()
  end
end
