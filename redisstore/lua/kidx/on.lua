-- kidx/on.lua: the kind index (store.QueueConfig.KindIndex), kept while
-- the queue's shape has the letter K. The contract of the kidx slot:
--
--   index_add(ids, n, kinds, scores)  index jobs ids[1..n]: kinds[i] the
--                                    kind (or one kind for all), scores[i]
--                                    the enqueue ms (or one for all)
--   index_drop(ids, vals)             unindex jobs about to be deleted
--                                    (vals their stored values, nil to
--                                    read them)
--   index_on()                       whether index_add keeps the jobs it
--                                    gets: whether a caller needs their
--                                    kinds for it
--
-- One sorted set, kinds, all scores 0, holds "<kind>\n<enqueuedMs, 13
-- digits><ID>": a kind's jobs are one range, oldest first (kinds have no
-- control characters, so "\n" sorts before any of them). The mark kib,
-- while set, is the HSCAN cursor of the jobs hash from which maintain.lua
-- goes on indexing the jobs that were there when the index was turned on.
--- @include conf kinds
--- @keys kinds jobs lean
--- @marks kib

local MS_PAD = {'000000000000', '00000000000', '0000000000', '000000000', '00000000', '0000000', '000000',
  '00000', '0000', '000', '00', '0', ''}

-- kidx_member returns the index's member for job id of kind k enqueued at
-- ms (a number or a string of digits).
local function kidx_member(k, ms, id)
  local s = type(ms) == 'string' and ms or string.format('%d', ms)
  return k .. '\n' .. (MS_PAD[#s] or '') .. s .. id
end

-- kidx_range returns the bounds of kind k's members, for ZRANGE BYLEX.
local function kidx_range(k)
  return '[' .. k .. '\n', '(' .. k .. '\11'
end

local function index_on() return has_shape('K') end

local function index_add(ids, n, kinds, scores)
  if not has_shape('K') or n == 0 then return end
  local z, m = {}, 0
  for i = 1, n do
    local k = kinds
    if type(kinds) == 'table' then k = kinds[i] end
    if k ~= '' then
      local s = scores
      if type(scores) == 'table' then s = scores[i] end
      z[m + 1], z[m + 2] = 0, kidx_member(k, s, ids[i])
      m = m + 2
    end
  end
  if m > 0 then call_chunked('ZADD', K.kinds, z, 2) end
end

local function index_drop(ids, vals)
  if not has_shape('K') or #ids == 0 then return end
  vals = vals or call_chunked_flat('HMGET', K.jobs, ids)
  local rm = {}
  for i = 1, #ids do
    local v = vals[i]
    local k = kind_of(v)
    if k ~= '' then rm[#rm + 1] = kidx_member(k, string.match(v, '^(%d+),'), ids[i]) end
  end
  if #rm > 0 then call_chunked('ZREM', K.kinds, rm, 1) end
end

-- index_build indexes about count more of the jobs that were there when the
-- index was turned on. It returns true once none are left.
local function index_build(count)
  local cur = M.kib
  if not cur or not has_shape('K') then return true end
  local got = rcall('HSCAN', K.jobs, cur, 'COUNT', count)
  local ids, kinds, scores, n = {}, {}, {}, 0
  local kv = got[2]
  for i = 1, #kv, 2 do
    n = n + 1
    ids[n], kinds[n] = kv[i], kind_of(kv[i + 1])
    scores[n] = string.match(kv[i + 1], '^(%d+),') or '0'
  end
  index_add(ids, n, kinds, scores)
  if got[1] == '0' then
    rcall('HDEL', K.marks, 'kib')
    M.kib = nil
    return true
  end
  rcall('HSET', K.marks, 'kib', got[1])
  M.kib = got[1]
  return false
end

-- kidx_set turns the index on or off (dropped). Turned on, it indexes up
-- to 2,000 of the jobs there at once, and maintain.lua the rest
-- (index_build).
local function kidx_set(on)
  if on == has_shape('K') then return end
  set_shape('K', on)
  if on then
    M.kib = '0'
    rcall('HSET', K.marks, 'kib', '0')
    index_build(2000)
    return
  end
  rcall('HDEL', K.marks, 'kib')
  rcall('UNLINK', K.kinds)
end
