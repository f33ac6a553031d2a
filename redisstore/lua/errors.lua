-- errors.lua: a job's error history (hash errs, one field per job): a
-- blob of msgpack bin32 frames, each holding one msgpack array [atMs,
-- attempt, error, stack]. Appending needs neither decoding nor
-- re-encoding the history; only the frame headers are walked to drop the
-- oldest past MAX_ERRORS (store.MaxErrorHistory).
--- @keys errs

-- append_error adds one record to job id's history. rest is the msgpack
-- encoding of [attempt, error, stack] without its array header, as the
-- client sent it, or the header of six elements (0x96) and [attempt,
-- error, stack, startedMs, worker]; a leading attempt 0 (the client did
-- not know it) is replaced with att. The time is the server's.
local function append_error(id, now, att, rest)
  local head = '\148'
  if string.byte(rest, 1) == 150 then
    head, rest = '\150', string.sub(rest, 2)
  end
  if string.byte(rest, 1) == 0 then
    rest = cmsgpack.pack(att) .. string.sub(rest, 2)
  end
  local body = head .. cmsgpack.pack(now) .. rest
  local frame = '\198' .. struct.pack('>I4', #body) .. body
  local blob = rcall('HGET', K.errs, id)
  if not blob then
    rcall('HSET', K.errs, id, frame)
    return
  end
  blob = blob .. frame
  -- Count frames; drop the oldest beyond MAX_ERRORS.
  local starts = {}
  local pos = 1
  local len = #blob
  while pos <= len do
    if pos + 4 > len or string.byte(blob, pos) ~= 198 then
      -- Not hopper's framing (corrupt or foreign data): start the history
      -- afresh rather than fail the script after it moved jobs.
      blob, starts = frame, {1}
      break
    end
    starts[#starts + 1] = pos
    pos = pos + 5 + struct.unpack('>I4', blob, pos + 1)
  end
  if #starts > MAX_ERRORS then
    blob = string.sub(blob, starts[#starts - MAX_ERRORS + 1])
  end
  rcall('HSET', K.errs, id, blob)
end

-- error_rest encodes [attempt, error, stack] the way the client does, for
-- errors the scripts record themselves (an expired lease).
local function error_rest(att, msg)
  return cmsgpack.pack(att) .. cmsgpack.pack(msg) .. cmsgpack.pack('')
end

-- error_text returns the message of an error record as the client encodes
-- it ([attempt, error, stack] without the array header).
local function error_text(rest)
  if rest == '' then return '' end
  if string.byte(rest, 1) == 150 then rest = string.sub(rest, 2) end -- see append_error
  local _, msg = cmsgpack.unpack(rest)
  if type(msg) ~= 'string' then return '' end
  return msg
end
