-- lib_wflocal.lua: a workflow's bookkeeping in the same step as its tasks'
-- ends, on a single Redis server (see workflow.go, "On one server").
--
-- The scripts that use it touch keys they were not given: the workflows'
-- keys, the queues the tasks they release go to, and the workflow index,
-- all named here as keys.go and workflow_keys.go name them, from the
-- prefix of KEYS[1]. Redis allows this on one server, never on a Cluster,
-- where the store keeps to the delivery of lib_wf.lua's records.

-- wf_keys returns the keys of workflow id, in wf_use's order.
local function wf_keys(id)
  local t = '{' .. PREFIX .. ':wf:' .. id .. '}:'
  return {t .. 'm', t .. 's', t .. 'r', t .. 'i', t .. 'd', t .. 'p', t .. 'o', t .. 'rel'}
end

-- new_acc returns an empty set of jobs to release: by[queue] holds the
-- queue's job IDs, dues and values (ids, dues, vals, n of each), order the
-- queues.
local function new_acc()
  return {by = {}, order = {}}
end

-- acc_add adds job id of queue q, with its due and value, to acc.
local function acc_add(acc, q, id, due, val)
  local b = acc.by[q]
  if not b then
    b = {ids = {}, dues = {}, vals = {}, n = 0}
    acc.by[q] = b
    acc.order[#acc.order + 1] = q
  end
  local k = b.n + 1
  b.n = k
  b.ids[k], b.dues[k], b.vals[k] = id, due, val
end

-- release_local enqueues the jobs of acc, one release_into per queue.
local function release_local(acc, now, later)
  local by = acc.by
  for _, q in ipairs(acc.order) do
    local t = '{' .. PREFIX .. ':' .. q .. '}:'
    QUEUE = q
    placed = {ready = {}, pend = {}, min_due = nil}
    SEGS, NSEG, EVN = {}, 0, 0
    local b = by[q]
    release_into({j = t .. 'j', r = t .. 'r', p = t .. 'p', c = t .. 'c', ev = t .. 'ev', wm = t .. 'wm',
      g = t .. 'g', d = t .. 'd', dx = t .. 'dx', a = t .. 'a', e = t .. 'e', o = t .. 'o', x = t .. 'x',
      ex = t .. 'ex', pg = t .. 'pg'}, b.ids, b.dues, b.vals, now, later, true)
  end
end

-- settle_local finishes what the open workflow wf's step released: it
-- takes the released tasks' payloads (stored "due|value") into acc, and
-- brings the index up to date (wfi_set.lua's work, then wf_synced.lua's).
local function settle_local(wf, acc)
  local list = {}
  for _, t in ipairs(released) do
    if st_cache[t] == 'e' then list[#list + 1] = t end
  end
  if #list > 0 then
    local pl = call_chunked_flat('HMGET', WK.p, list)
    for i = 1, #list do
      local v = pl[i]
      if v then
        local bar = string.find(v, '|', 1, true)
        acc_add(acc, info(list[i]).q, wf .. '~' .. list[i], string.sub(v, 1, bar - 1), string.sub(v, bar + 1))
      end
    end
    call_chunked('HDEL', WK.p, list, 1)
  end
  local st = WM.st
  if st and st ~= WM.ist then
    local m = redis.call('HMGET', WK.m, 'cr', 'en', 'ret')
    local x = '{' .. PREFIX .. ':~wf}:'
    redis.call('ZADD', x .. 'all', m[1], wf)
    redis.call('ZADD', x .. 'ids', 0, wf)
    for _, name in ipairs({'running', 'succeeded', 'failed', 'cancelled'}) do
      if name == st then redis.call('ZADD', x .. name, m[1], wf) else redis.call('ZREM', x .. name, wf) end
    end
    if st ~= 'running' then
      redis.call('ZADD', x .. 'exp', (tonumber(m[2]) or 0) + (tonumber(m[3]) or 0), wf)
    else
      redis.call('ZREM', x .. 'exp', wf)
    end
    redis.call('HSET', WK.m, 'ist', st)
    WM.ist = st
  end
end

-- wf_apply_now applies the task ends wf_note collected to their
-- workflows, then enqueues the tasks they released, one release_into per
-- queue. The ends carry no seq: applied in the step that ended the job,
-- no record of an earlier run can come after them (a task runs again only
-- after a requeue, whose record has a later seq).
wf_apply_now = function(now, later)
  local by, order = {}, {}
  for k = 1, wf_written do
    local wf, task = string.match(wf_ids[k], '^([^~]*)~(.*)$')
    if wf then
      local a = by[wf]
      if not a then
        a = {n = 0, tasks = {}, seqs = {}, ocs = {}, res = {}}
        by[wf] = a
        order[#order + 1] = wf
      end
      local m = a.n + 1
      a.n = m
      a.tasks[m], a.seqs[m], a.ocs[m], a.res[m] = task, false, wf_ocs[k], wf_res[k]
    end
  end
  local acc = new_acc()
  for _, wf in ipairs(order) do
    wf_use(wf_keys(wf))
    if WM.st then
      local a = by[wf]
      apply_ends(a.n, a.tasks, a.seqs, a.ocs, a.res, now)
      settle_local(wf, acc)
    end
  end
  release_local(acc, now, later)
end

-- A script with this file enqueues what it releases itself.
wf_inline = true
