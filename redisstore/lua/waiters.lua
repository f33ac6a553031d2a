-- waiters.lua: WatchJob's waiters (see wait_job.go): the set waited holds
-- the IDs of jobs a waiter waits for; the script that ends one publishes
-- how it ended.
--- @keys waited errs

-- waited_among returns the IDs among ids that a WatchJob call waits for,
-- as a set, or nil when there are none: one EXISTS when nobody waits in
-- the queue.
local function waited_among(ids)
  return members_among(K.waited, ids)
end

-- publish_end tells the WatchJob callers of job id how it ended, on
-- "<prefix>:done" (wait_job.go): the msgpack array [queue, id, state
-- ('done', 'garbage' or 'deleted'), result, attempt, kind, error,
-- cancelled (0/1), time ms, error history (errors.lua's blob, or '')].
-- The history is read only for a job past its first attempt (an error or
-- an expired lease counted one), from errs, which a script that
-- publishes an end holds (errors.lua).
local function publish_end(id, state, attempt, kind, result, err, cancelled, now)
  rcall('SREM', K.waited, id)
  local c = 0
  if cancelled then c = 1 end
  local hist = ''
  if state ~= 'deleted' and ((attempt or 0) > 1 or (err or '') ~= '') then hist = rcall('HGET', K.errs, id) or '' end
  -- pcall: a refused message must not stop the step after its writes
  -- (base.lua's wake functions).
  redis.pcall('PUBLISH', PREFIX .. ':done',
    cmsgpack.pack({QUEUE, id, state, result or '', attempt or 0, kind or '', err or '', c, now, hist}))
end
