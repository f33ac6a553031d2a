// Command layoutfloor measures, with callgrind (layoutfloor.sh), what two
// stored layouts that hopper does not have yet would cost Redis at the
// least, beside what the present one costs, for the feature paths whose
// targets the present layout misses (docs/performance.md):
//
//   - a grouped queue's claim: 32 jobs popped from a plain ready list
//     (claim-list, what a queue without groups pays); from the rotation
//     of groups, one ranged read of the sorted set of grouped jobs per
//     group, 4 jobs of each of 8 groups, as lua/groups/take.lua's fast
//     path does over many groups (claim-rotation);
//     and from one sorted set whose scores are each job's round in its
//     group, start-time fair order, so that a claim is one ranged read
//     and one removal by rank whatever the groups (claim-fair);
//   - the end of a step of a workflow chain, for 32 workflows a call,
//     with each task's state, remaining count and dependents packed in
//     one field and its job parked in its queue at creation, so that the
//     end reads the workflow's meta, the task's and its dependent's
//     fields, writes both fields and the counters in one command each,
//     and releases the dependent's job by one push (chain-end).
//
// Each is a Redis function doing only that: a floor, not a design (no
// holds, caps, events, cancellation or delivery records). Run -setup
// first (untimed), then -fn with -n jobs; layoutfloor.sh does both.
package main

import (
	"context"
	"crypto/sha1"
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// floorLua holds the functions. The keys are those of queue "q" and of
// workflows "1", "2", ... under the prefix "lf"; every key a function
// touches comes in KEYS.
const floorLua = `
-- setup_claims(n, groups): n ready job IDs of 20 characters in three
-- layouts: the list r; the sorted set gz of "<group>\0<order, 13
-- characters><ID>" at score 0 with the rotation gq of the groups; the
-- sorted set gf of "<group>\0<ID>" scored by the job's round in its
-- group (its place among the group's jobs).
local function setup_claims(KEYS, ARGV)
  local n, ng = tonumber(ARGV[1]), tonumber(ARGV[2])
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
  local l, z, f = {}, {}, {}
  local function put()
    if #l == 0 then return end
    redis.call('RPUSH', KEYS[1], unpack(l))
    redis.call('ZADD', KEYS[2], unpack(z))
    redis.call('ZADD', KEYS[4], unpack(f))
    l, z, f = {}, {}, {}
  end
  for i = 1, n do
    local g = 'g' .. (i % ng)
    local id = string.format('01m8pkzz%012d', i)
    l[#l + 1] = id
    z[#z + 1], z[#z + 2] = 0, g .. '\0' .. string.format('1%012d', i) .. id
    f[#f + 1], f[#f + 2] = math.floor(i / ng), g .. '\0' .. id
    if #l == 1000 then put() end
  end
  put()
  local q = {}
  for i = 0, ng - 1 do q[#q + 1] = 'g' .. i end
  redis.call('RPUSH', KEYS[3], unpack(q))
  return n
end

local function claim_list(KEYS, ARGV)
  return #(redis.call('LPOP', KEYS[1], 32) or {})
end

-- claim_rotation visits 8 groups, taking 4 jobs of each (hopper's
-- store.GroupQuantum).
local function claim_rotation(KEYS, ARGV)
  local gs = redis.call('LPOP', KEYS[3], 8)
  if not gs then return 0 end
  local ids, taken = {}, {}
  for _, g in ipairs(gs) do
    local m = redis.call('ZRANGE', KEYS[2], '[' .. g .. '\0', '(' .. g .. '\1', 'BYLEX', 'LIMIT', 0, 4)
    for i = 1, #m do
      ids[#ids + 1] = string.sub(m[i], #g + 15)
      taken[#taken + 1] = m[i]
    end
  end
  if #taken > 0 then redis.call('ZREM', KEYS[2], unpack(taken)) end
  redis.call('RPUSH', KEYS[3], unpack(gs))
  return #ids
end

local function claim_fair(KEYS, ARGV)
  local m = redis.call('ZRANGE', KEYS[4], 0, 31)
  if #m == 0 then return 0 end
  local ids = {}
  for i = 1, #m do ids[i] = string.sub(m[i], string.find(m[i], '\0', 1, true) + 1) end
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, #m - 1)
  return #ids
end

-- setup_chains: per workflow (KEYS: its meta and states, in pairs) a
-- chain of 10 tasks t0..t9, t0 running: a task's field is its state,
-- for a waiting task its remaining count, then '|' and its dependent.
local function setup_chains(KEYS, ARGV)
  for w = 1, #KEYS, 2 do
    local s = {}
    for i = 0, 9 do
      local v = i == 0 and 'e' or 'w1'
      if i < 9 then v = v .. '|t' .. (i + 1) end
      s[#s + 1], s[#s + 2] = 't' .. i, v
    end
    redis.call('DEL', KEYS[w], KEYS[w + 1])
    redis.call('HSET', KEYS[w + 1], unpack(s))
    redis.call('HSET', KEYS[w], 'id', w, 'name', 'chain', 'st', 'running', 'cx', 0, 'cr', 1, 'en', 0,
      'ret', 86400000, 'nt', 10, 'open', 10, 'bad', 0, 'ist', 'running', 'c_w', 9, 'c_e', 1, 'c_S', 0)
  end
  return #KEYS / 2
end

-- chain_end: KEYS the queue's ready list, then each workflow's meta and
-- states; ARGV each workflow's ID and running task, in pairs.
local function chain_end(KEYS, ARGV)
  local rel = {}
  for w = 1, #ARGV / 2 do
    local m, s, t = KEYS[2 * w], KEYS[2 * w + 1], ARGV[2 * w]
    local meta = redis.call('HMGET', m, 'st', 'cx', 'open', 'bad', 'ist', 'c_w', 'c_e', 'c_S')
    local d = string.sub(redis.call('HGET', s, t), 3)
    local dd = string.match(redis.call('HGET', s, d), '|(.*)$')
    redis.call('HSET', s, t, 'S|' .. d, d, dd and ('e|' .. dd) or 'e')
    redis.call('HSET', m, 'c_w', meta[6] - 1, 'c_S', meta[8] + 1, 'open', meta[3] - 1)
    rel[#rel + 1] = ARGV[2 * w - 1] .. '~' .. d
  end
  redis.call('RPUSH', KEYS[1], unpack(rel))
  return #rel
end

register('setup_claims', setup_claims)
register('claim_list', claim_list)
register('claim_rotation', claim_rotation)
register('claim_fair', claim_fair)
register('setup_chains', setup_chains)
register('chain_end', chain_end)
`

const (
	setupJobs  = 64000 // ready jobs set up for the claims
	setupFlows = 2000  // chains set up, of 10 tasks each
	perCall    = 32    // jobs a claim takes, chain steps a call ends
	chainSteps = 9     // ends a chain of 10 has, its last task's aside
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the Redis server (its data under {lf:...} is replaced)")
	setup := flag.Bool("setup", false, "load the functions and set up the jobs and chains (untimed)")
	fn := flag.String("fn", "", "claim-list, claim-rotation, claim-fair or chain-end: the calls to time")
	n := flag.Int("n", 16384, "jobs to claim, or chain steps to end, 32 a call")
	groups := flag.Int("groups", 1000, "with -setup: the groups the jobs are spread over")
	flag.Parse()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	defer rdb.Close()
	queue := []string{"{lf:q}:r", "{lf:q}:gz", "{lf:q}:gq", "{lf:q}:gf"}
	if *setup {
		if err := doSetup(ctx, rdb, queue, *groups); err != nil {
			log.Fatal(err)
		}
		return
	}
	calls := *n / perCall
	if calls == 0 {
		log.Fatalf("-n %d: want at least %d (one call)", *n, perCall)
	}
	lib := libName()
	switch *fn {
	case "claim-list", "claim-rotation", "claim-fair":
		if *n > setupJobs {
			log.Fatalf("-n %d: at most %d jobs are set up", *n, setupJobs)
		}
		name := lib + strings.ReplaceAll(*fn, "-", "_")
		for range calls {
			got, err := rdb.FCall(ctx, name, queue).Int()
			if err != nil {
				log.Fatal(err)
			}
			if got != perCall {
				log.Fatalf("%s took %d jobs, want %d: run -setup first", *fn, got, perCall)
			}
		}
	case "chain-end":
		if calls > chainSteps*(setupFlows/perCall) {
			log.Fatalf("-n %d: at most %d chain steps are set up", *n, chainSteps*(setupFlows/perCall)*perCall)
		}
		for c := range calls {
			// Call c ends step c / rounds of workflows base+1..base+32.
			rounds := setupFlows / perCall
			step, base := c/rounds, (c%rounds)*perCall
			keys := []string{queue[0]}
			args := make([]any, 0, 2*perCall)
			for w := base + 1; w <= base+perCall; w++ {
				keys = append(keys, flowKey(w, "m"), flowKey(w, "s"))
				args = append(args, strconv.Itoa(w), "t"+strconv.Itoa(step))
			}
			if err := rdb.FCall(ctx, lib+"chain_end", keys, args...).Err(); err != nil {
				log.Fatal(err)
			}
		}
	default:
		log.Fatalf("-fn %q: want claim-list, claim-rotation, claim-fair or chain-end", *fn)
	}
	fmt.Printf("%s: %d calls of %d\n", *fn, calls, perCall)
}

// libName is the prefix of the functions' names, "lf_" and 12 hex digits
// of a hash of their code, then '_': the library is named after its code
// (without the '_'), so that a server holding another version loads this
// one too.
func libName() string {
	return fmt.Sprintf("lf_%x", sha1.Sum([]byte(floorLua)))[:15] + "_"
}

// flowKey is the key of workflow w with suffix.
func flowKey(w int, suffix string) string {
	return "{lf:wf:" + strconv.Itoa(w) + "}:" + suffix
}

// doSetup loads the functions and sets up the jobs and the chains.
func doSetup(ctx context.Context, rdb *redis.Client, queue []string, groups int) error {
	lib := libName()
	// A library's top level runs without Lua's standard functions (pairs
	// among them): each function is registered by name.
	src := "local function register(name, fn) redis.register_function('" + lib + "' .. name, fn) end\n" + floorLua
	err := rdb.FunctionLoad(ctx, "#!lua name="+strings.TrimSuffix(lib, "_")+"\n"+src).Err()
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("load the functions: %w", err)
	}
	if err := rdb.FCall(ctx, lib+"setup_claims", queue, setupJobs, groups).Err(); err != nil {
		return err
	}
	keys := make([]string, 0, 2*setupFlows)
	for w := 1; w <= setupFlows; w++ {
		keys = append(keys, flowKey(w, "m"), flowKey(w, "s"))
	}
	return rdb.FCall(ctx, lib+"setup_chains", keys).Err()
}
