package redisstore

import "strings"

// keyCheckSrc is the prelude that tests put ahead of every script
// (keyCheck): it wraps redis.call and redis.pcall so that a command on a
// key the script was not given in KEYS fails the script with an error
// naming the key. Redis itself lets a script touch any key of its node;
// Redis's scripting contract, a Cluster's slot checks, proxies that route
// by key and servers that enforce declared keys do not, so every key a
// script touches must be in KEYS (keys.go) — this makes the test suites
// check it on every call.
//
// kcPos says where a command's keys are: 1 the first argument, -1 every
// argument, 0 none. A command missing from it fails the script too, so a
// new command cannot slip past the check.
//
// A key of a family (keys.go's keyFamilies), "<root>:<member>", passes
// when the script declared its root: KC_ROOTS holds the roots' suffixes,
// a workflow's ("{<prefix>:wf:<id>}:<suffix>") as "wf:<suffix>", since a
// queue's key may end with the same suffix.
//
// It declares three locals in the script's chunk, which holds at most 200
// (TestEveryVariantLoads): kc_real, and the redis and kc_begin that the
// scripts call; the rest stays in a block of its own.
var keyCheckSrc = keyCheckHead + keyCheckRoots() + keyCheckBody

const keyCheckHead = `
-- The global redis, looked up at every call: a function library sees
-- another redis table while it loads.
local function kc_real(pc, ...)
  if pc == 'acl' then return redis.acl_check_cmd(...) end
  if pc then return redis.pcall(...) end
  return redis.call(...)
end
local redis, kc_begin
do
  local KC_DECL, KC_FAM = {}, {}
`

// keyCheckRoots writes KC_ROOTS, the suffixes of the families' roots.
func keyCheckRoots() string {
	var b strings.Builder
	b.WriteString("  local KC_ROOTS = {")
	for _, f := range keyFamilies {
		d := keyTable[keyIndex[f.root]]
		name := d.suffix
		if d.fam == famWorkflow {
			name = "wf:" + name
		}
		b.WriteString("['" + name + "'] = true, ")
	}
	b.WriteString("}\n")
	return b.String()
}

const keyCheckBody = `
  local KC_POS = {
    GET = 1, SET = 1, DEL = -1, UNLINK = -1, EXISTS = -1, INCR = 1, INCRBY = 1, TYPE = 1, PTTL = 1,
    HGET = 1, HSET = 1, HSETNX = 1, HMGET = 1, HDEL = 1, HLEN = 1, HEXISTS = 1, HINCRBY = 1,
    HGETALL = 1, HKEYS = 1, HVALS = 1, HSCAN = 1, HSTRLEN = 1,
    LPUSH = 1, RPUSH = 1, LPOP = 1, RPOP = 1, LLEN = 1, LRANGE = 1, LINDEX = 1, LTRIM = 1, LREM = 1, LPOS = 1,
    SADD = 1, SREM = 1, SMEMBERS = 1, SISMEMBER = 1, SMISMEMBER = 1, SCARD = 1, SSCAN = 1,
    ZADD = 1, ZREM = 1, ZRANGE = 1, ZRANGEBYSCORE = 1, ZREVRANGE = 1, ZCARD = 1, ZCOUNT = 1, ZSCORE = 1,
    ZMSCORE = 1, ZREMRANGEBYSCORE = 1, ZLEXCOUNT = 1, ZRANGEBYLEX = 1, ZRANK = 1, ZPOPMIN = 1, ZSCAN = 1,
    XADD = 1, XRANGE = 1, XREVRANGE = 1, XLEN = 1, XTRIM = 1,
    RENAME = -1, PEXPIRE = 1, PERSIST = 1,
    TIME = 0, PUBLISH = 0, SPUBLISH = 0,
  }
  local function kc_key(c, k)
    if KC_DECL[k] then return end
    for i = 1, #KC_FAM do
      local r = KC_FAM[i]
      if string.sub(k, 1, #r) == r then return end
    end
    error('keycheck: ' .. c .. ' on key ' .. tostring(k) .. ', which is not in KEYS')
  end
  local function kc_check(cmd, ...)
    local c = string.upper(cmd)
    local p = KC_POS[c]
    if p == nil then error('keycheck: command ' .. c .. ' is not in the key-check table (keycheck.go)') end
    if p == 1 then
      kc_key(c, (...))
    elseif p == -1 then
      for i = 1, select('#', ...) do kc_key(c, (select(i, ...))) end
    end
  end
  -- (A function library has no setmetatable: the scripts use call and
  -- pcall only, and the library registers itself with redis_register.)
  redis = {
    call = function(cmd, ...) kc_check(cmd, ...) return kc_real(false, cmd, ...) end,
    pcall = function(cmd, ...) kc_check(cmd, ...) return kc_real(true, cmd, ...) end,
    acl_check_cmd = function(...) return kc_real('acl', ...) end,
  }
  kc_begin = function(keys)
    KC_DECL, KC_FAM = {}, {}
    for i = 1, #keys do
      local k = keys[i]
      KC_DECL[k] = true
      -- A key ends with "}:<suffix>"; a workflow's tag holds ":wf:".
      local e = string.find(k, '}:', 1, true)
      if e then
        local root = string.sub(k, e + 2)
        if string.find(string.sub(k, 1, e), ':wf:', 1, true) then root = 'wf:' .. root end
        if KC_ROOTS[root] then KC_FAM[#KC_FAM + 1] = k .. ':' end
      end
    end
  end
end
`
