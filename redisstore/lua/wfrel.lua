-- wfrel.lua: enqueue released workflow tasks into this queue, for
-- wf_release.lua and wf/local.lua (see workflow_deliver.go).
--- @include place events kinds kidx
--- @keys jobs wf_tasks garbage done done_exp att errs results cancelled extras progress

-- release_forget clears what a finished job of an earlier workflow of the
-- same ID left, before its ID is reused.
local function release_forget(id)
  index_drop({id})
  rcall('ZREM', K.done_exp, id)
  rcall('HDEL', K.att, id)
  rcall('HDEL', K.errs, id)
  rcall('HDEL', K.results, id)
  rcall('SREM', K.cancelled, id)
  rcall('HDEL', K.extras, id)
  rcall('HDEL', K.progress, id)
end

-- release_into enqueues jobs ids (parallel: dues, "" now, "+ms" after now
-- or absolute ms; vals, the envelopes, which it prefixes with the enqueue
-- time) and returns one string per job: "r" (ready), "p" (pending), "d"
-- (released before: the task set holds it, whether or not its job is
-- still here, so a task's job is enqueued at most once) or "a" (adopted).
-- A job that holds the ID without the mark is another's: one left by an
-- earlier workflow of the same ID, removed since. When it has finished
-- (done or garbage) it is replaced; when it still waits or runs, it
-- becomes the task's job. With once, the caller vouches that none of the
-- jobs was released before (it moved their tasks to enqueued in the same
-- step), which spares the look at the marks. The caller flushes the
-- events.
local function release_into(ids, dues, vals, now, later, once)
  local nows = str(now) .. ','
  local marked = once and {} or call_chunked_flat('SMISMEMBER', K.wf_tasks, ids)
  -- One job (a chain's step): stored by HSETNX, which looks and writes
  -- in one command, where a batch takes one HMGET and one HSET.
  local one = #ids == 1 and marked[1] ~= 1 and nows .. vals[1]
  local held = one and {rcall('HSETNX', K.jobs, ids[1], one) == 0} or call_chunked_flat('HMGET', K.jobs, ids)
  local out, mark, hv, nm, nh = {}, {}, {}, 0, 0
  local pr, prv, pall, nr, na -- place.lua's ready_lists, for the jobs due now (nil after a place)
  local evids, evkinds, evstates, ne = {}, {}, {}, 0
  -- A job's kind is read out of its value for the events and the kind
  -- index only, and their columns made only for them: not while neither
  -- wants them (emit_many writes nothing then, index_add is kidx/none's).
  local kinds = ev_writes(now) or index_on()
  for n = 1, #ids do
    local id = ids[n]
    if marked[n] == 1 then
      out[n] = 'd'
    else
      nm = nm + 1
      if not once then mark[nm] = id end
      local fresh = not held[n]
      if not fresh and (rcall('ZREM', K.garbage, id) == 1 or rcall('ZREM', K.done, id) == 1) then
        -- A finished job of an earlier workflow: replace it.
        release_forget(id)
        fresh = true
      end
      if fresh then
        local v = one or nows .. vals[n]
        if not one or held[n] then hv[nh + 1], hv[nh + 2], nh = id, v, nh + 2 end
        if dues[n] == '' then
          if not pr then
            pr, prv, pall = ready_lists()
            nr, na = #pr, #pall
          end
          nr, na = nr + 1, na + 1
          pr[nr], prv[nr], pall[na], out[n] = id, v, v, 'r'
        else
          out[n] = place(id, dues[n], v)
          pr = nil
        end
        if kinds then
          ne = ne + 1
          evids[ne], evkinds[ne], evstates[ne] = id, kind_of_new(vals[n]), out[n]
        end
      else
        out[n] = 'a' -- adopted
      end
    end
  end
  if nm > 0 then call_chunked('SADD', K.wf_tasks, once and ids or mark, 1) end
  if nh > 0 then call_chunked('HSET', K.jobs, hv, 2) end
  index_add(evids, ne, evkinds, now)
  store_placed()
  emit_many(1, evids, ne, evkinds, 0, evstates)
  return out
end
