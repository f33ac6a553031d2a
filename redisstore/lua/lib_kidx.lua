-- lib_kidx.lua: the kind index (store.QueueConfig.KindIndex), for the
-- scripts that add or delete jobs and maintain.lua, which builds it (needs
-- lib_kinds.lua).
--
-- Per kind a sorted set {p:q}:ki:<kind> of job ID -> enqueue ms, and the
-- set {p:q}:kis of the kinds indexed, so that turning the index off can
-- drop them all. The config hash's field 'ki' says the queue keeps the
-- index; 'kib', while set, is the HSCAN cursor of the jobs hash from which
-- maintain.lua goes on indexing the jobs that were there before.
-- Scripts read 'ki' with the config fields they read anyway, so a queue
-- without the index pays nothing more; and the functions are built on
-- first use only (see lib_prio.lua's ext()).

local kidx_build, kidx_cache
-- kidx_on is set by a script that read the config field 'ki', for the
-- helpers it calls.
local kidx_on = false
local function reset_kidx()
  kidx_cache, kidx_on = nil, false
end
local function kidx()
  if not kidx_cache then kidx_cache = kidx_build() end
  return kidx_cache
end

kidx_build = function()
  -- base returns the queue's key prefix "{p:q}:" from its jobs hash.
  local function base(jobs) return string.sub(jobs, 1, -2) end

  -- bucket returns the list of kind k in table by, made if need be.
  local function bucket(by, k)
    local l = by[k]
    if not l then
      l = {}
      by[k] = l
    end
    return l
  end

  -- add indexes jobs ids; kinds[i] is the kind of ids[i] (or kinds one
  -- kind for all), scores[i] its enqueue ms (or scores one for all). A job
  -- indexed already keeps its place.
  local function add(jobs, ids, n, kinds, scores)
    local by = {}
    for i = 1, n do
      local k = kinds
      if type(kinds) == 'table' then k = kinds[i] end
      if k ~= '' then
        local l = bucket(by, k)
        l[#l + 1] = type(scores) == 'table' and scores[i] or scores
        l[#l + 1] = ids[i]
      end
    end
    local b = base(jobs)
    for k, l in pairs(by) do
      for s = 1, #l, 2000 do
        redis.call('ZADD', b .. 'ki:' .. k, 'NX', unpack(l, s, math.min(s + 1999, #l)))
      end
      redis.call('SADD', b .. 'kis', k)
    end
  end

  -- drop takes jobs ids, about to be deleted, out of the index: call it
  -- before their values go.
  local function drop(jobs, ids)
    local vals = call_chunked_flat('HMGET', jobs, ids)
    local by = {}
    for i = 1, #ids do
      local k = kind_of(vals[i])
      if k ~= '' then
        local l = bucket(by, k)
        l[#l + 1] = ids[i]
      end
    end
    local b = base(jobs)
    for k, l in pairs(by) do
      call_chunked('ZREM', b .. 'ki:' .. k, l, 1)
    end
  end

  -- build indexes about count more of the jobs that were there when the
  -- index was turned on. It returns true once none are left.
  local function build(jobs, conf, count)
    local cur = redis.call('HGET', conf, 'kib')
    if not cur then return true end
    local got = redis.call('HSCAN', jobs, cur, 'COUNT', count)
    local ids, kinds, scores, n = {}, {}, {}, 0
    local kv = got[2]
    for i = 1, #kv, 2 do
      n = n + 1
      ids[n], kinds[n] = kv[i], kind_of(kv[i + 1])
      scores[n] = tonumber(string.match(kv[i + 1], '^(%d+),')) or 0
    end
    add(jobs, ids, n, kinds, scores)
    if got[1] == '0' then
      redis.call('HDEL', conf, 'kib')
      return true
    end
    redis.call('HSET', conf, 'kib', got[1])
    return false
  end

  -- set turns the index on or off (dropped). Turned on, it indexes up to
  -- 2,000 of the jobs there at once, and maintain.lua the rest (build).
  local function set(jobs, conf, on)
    local b = base(jobs)
    if on then
      if not redis.call('HGET', conf, 'ki') then
        redis.call('HSET', conf, 'ki', '1', 'kib', '0')
        build(b .. 'j', conf, 2000)
      end
      return
    end
    if not redis.call('HGET', conf, 'ki') then return end
    redis.call('HDEL', conf, 'ki', 'kib')
    for _, k in ipairs(redis.call('SMEMBERS', b .. 'kis')) do redis.call('UNLINK', b .. 'ki:' .. k) end
    redis.call('DEL', b .. 'kis')
  end

  return {add = add, drop = drop, build = build, set = set}
end
