-- extend.lua: push lease deadlines of one queue to now+lease, and store
-- the progress the running attempts reported (see extend.go).
--- @flags allow-oom
--- @include att events kinds
--- @keys unack cancelled jobs progress
--
-- ARGV: 1 lease ms, then triples id, token, progress ('' for none, else
--       the msgpack array [percent, data, [[atMs, text], ...]] of the
--       report)
-- Returns {deadlineMs, status1, status2, ...}: bit 1 the lease is held (and
-- now extended), bit 2 the job was cancelled.
--
-- Cost per call: TIME, ZMSCORE, ZADD XX, SMISMEMBER when anything is
-- cancelled; none per job without progress. A report costs an HGET and
-- HSET of the job's progress (the log lines appended, the last
-- MAX_LOG_LINES kept) and its event.

local unack = K.unack
local now, later = now_ms()
local deadline = later + tonumber(ARGV[1])
local members, ids, reports = {}, {}, {}
for i = 2, #ARGV, 3 do
  local n = #ids + 1
  ids[n] = ARGV[i]
  members[n] = ARGV[i] .. '|' .. ARGV[i + 1]
  reports[n] = ARGV[i + 2]
end
local held = call_chunked_flat('ZMSCORE', unack, members)
local cancelled = {}
if rcall('SCARD', K.cancelled) > 0 then
  cancelled = call_chunked_flat('SMISMEMBER', K.cancelled, ids)
end

-- progress stores report rep of job id and emits it.
local function progress(id, rep)
  local r = cmsgpack.unpack(rep)
  local log = {}
  local cur = rcall('HGET', K.progress, id)
  if cur then log = cmsgpack.unpack(cur)[3] or {} end
  for _, l in ipairs(r[3] or {}) do log[#log + 1] = l end
  if #log > MAX_LOG_LINES then
    local keep = {}
    for k = #log - MAX_LOG_LINES + 1, #log do keep[#keep + 1] = log[k] end
    log = keep
  end
  rcall('HSET', K.progress, id, cmsgpack.pack({r[1], r[2], log}))
  if events_on() then
    local a = parse_att(rcall('HGET', K.att, id))
    emit(4, id, kind_of(rcall('HGET', K.jobs, id)), a, rep)
  end
end

local out = {deadline}
local z = {}
local reported = false
for i = 1, #members do
  local st = 0
  if held[i] then
    st = 1
    z[#z + 1] = deadline
    z[#z + 1] = members[i]
    if reports[i] ~= '' then
      if not reported then
        reported = true
        read_fields()
        events_config()
      end
      progress(ids[i], reports[i])
    end
  end
  if cancelled[i] == 1 then st = st + 2 end
  out[#out + 1] = st
end
if #z > 0 then
  -- XX: never re-adds a member that left unack.
  local i = 1
  while i <= #z do
    local j = math.min(#z, i + CHUNK - 1)
    rcall('ZADD', unack, 'XX', unpack(z, i, j))
    i = j + 1
  end
end
if reported then flush_events(now) end
return out
