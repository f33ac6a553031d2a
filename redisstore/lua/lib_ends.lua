-- lib_ends.lua: job waiters and the error text of an outcome (see
-- wait_job.go, scripts.go).

-- error_text returns the message of an error record as the client encodes
-- it ([attempt, error, stack] without the array header).
local function error_text(rest)
  if rest == '' then return '' end
  if string.byte(rest, 1) == 150 then rest = string.sub(rest, 2) end -- see append_error
  local _, msg = cmsgpack.unpack(rest)
  if type(msg) ~= 'string' then return '' end
  return msg
end

-- waited_among returns the IDs among ids that a WatchJob call waits for
-- (set key wj), as a set, or nil when there are none: one EXISTS when
-- nobody waits in the queue.
local function waited_among(wj, ids)
  if #ids == 0 or redis.call('EXISTS', wj) == 0 then return nil end
  local m = call_chunked_flat('SMISMEMBER', wj, ids)
  local out
  for i = 1, #ids do
    if m[i] == 1 then
      out = out or {}
      out[ids[i]] = true
    end
  end
  return out
end

-- publish_end tells the WatchJob callers of job id how it ended, on
-- "<prefix>:done" (wait_job.go): the msgpack array [queue, id, state
-- ('done', 'garbage' or 'deleted'), result, attempt, kind, error,
-- cancelled (0/1), time ms].
local function publish_end(wj, id, state, attempt, kind, result, err, cancelled, now)
  redis.call('SREM', wj, id)
  local c = 0
  if cancelled then c = 1 end
  redis.call('PUBLISH', PREFIX .. ':done',
    cmsgpack.pack({QUEUE, id, state, result or '', attempt or 0, kind or '', err or '', c, now}))
end
