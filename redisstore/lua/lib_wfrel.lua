-- lib_wfrel.lua: enqueue released workflow tasks into one queue, for
-- wf_release.lua and lib_wflocal.lua (see workflow_deliver.go; needs
-- lib_kidx.lua).
--
-- release_into's k names the queue's keys: j jobs hash, r ready list,
-- p pending zset, c config hash, ev event stream, wm the queue's workflow
-- task set (lib_wf.lua), g garbage zset, d done zset, dx done expiry zset,
-- a attempt info hash, e error history hash, o results hash, x cancelled
-- set, ex extras hash, pg progress hash. ids, dues and vals are parallel:
-- job ID, due ("" now, "+ms" after now, or absolute ms) and value (the
-- envelope, which this prefixes with the enqueue time).
--
-- It returns one string per job: "r" (ready), "p" (pending), "d"
-- (released before: the task set holds it, whether or not its job is
-- still here, so a task's job is enqueued at most once) or "a" (adopted).
-- A job that holds the ID without the mark is another's: one left by an
-- earlier workflow of the same ID, removed since. When it has finished
-- (done or garbage) it is replaced; when it still waits or runs, it
-- becomes the task's job.
--
-- With once, the caller vouches that none of the jobs was released before
-- (it moved their tasks to enqueued in the same step), which spares the
-- look at the marks.
local function release_into(k, ids, dues, vals, now, later, once)
  local cf = redis.call('HMGET', k.c, 'ev', 'evw', 'gm', 'ki')
  events_config(cf[1], cf[2])
  local nows = str(now) .. ','
  local marked = once and {} or call_chunked_flat('SMISMEMBER', k.wm, ids)
  local held = call_chunked_flat('HMGET', k.j, ids)
  local ev = events_on()
  local out, mark, hv = {}, {}, {}
  local nm, nh = 0, 0
  local evids, evkinds, evstates, ne = {}, {}, {}, 0
  for n = 1, #ids do
    local id = ids[n]
    if marked[n] == 1 then
      out[n] = 'd'
    else
      nm = nm + 1
      mark[nm] = id
      local fresh = not held[n]
      if not fresh and (redis.call('ZREM', k.g, id) == 1 or redis.call('ZREM', k.d, id) == 1) then
        -- A finished job of an earlier workflow: replace it.
        if cf[4] then kidx().drop(k.j, {id}) end
        redis.call('ZREM', k.dx, id)
        redis.call('HDEL', k.a, id)
        redis.call('HDEL', k.e, id)
        redis.call('HDEL', k.o, id)
        redis.call('SREM', k.x, id)
        redis.call('HDEL', k.ex, id)
        redis.call('HDEL', k.pg, id)
        fresh = true
      end
      if fresh then
        hv[nh + 1] = id
        hv[nh + 2] = nows .. vals[n]
        nh = nh + 2
        if cf[4] then kidx().add(k.j, {id}, 1, kind_of_new(vals[n]), now) end
        local res = place(id, dues[n], now, later, ext().prio_of_new(vals[n]), ext().group_of_new(vals[n]))
        if ev then
          ne = ne + 1
          evids[ne], evkinds[ne], evstates[ne] = id, kind_of_new(vals[n]), res
        end
        out[n] = res
      else
        out[n] = 'a' -- adopted
      end
    end
  end
  if nm > 0 then call_chunked('SADD', k.wm, mark, 1) end
  if nh > 0 then call_chunked('HSET', k.j, hv, 2) end
  store_placed(k.r, k.p, k.c, cf[3])
  emit_many(1, evids, ne, evkinds, 0, evstates)
  flush_events(k.ev, now)
  return out
end
