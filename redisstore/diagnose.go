package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// aclProbes are the commands a Store sends, each with the ACL rule that
// grants it and arguments of the right arity ($k a queue's key, $g a
// store-wide key, $c a channel of the prefix). Their order and rules are
// those of the ACL SETUSER line in doc.go (a test holds them equal).
var aclProbes = []struct {
	rule string
	args []string
}{
	{"+ping", []string{"PING"}},
	{"+info", []string{"INFO", "server"}},
	{"+config|get", []string{"CONFIG", "GET", "maxmemory-policy"}},
	{"+function|load", []string{"FUNCTION", "LOAD", "#!lua name=hopper_check\n"}},
	{"+fcall", []string{"FCALL", "hopper_check", "1", "$k"}},
	{"+script|load", []string{"SCRIPT", "LOAD", "return 1"}},
	{"+evalsha", []string{"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "1", "$k"}},
	{"+eval", []string{"EVAL", "return 1", "1", "$k"}},
	{"+time", []string{"TIME"}},
	{"+pttl", []string{"PTTL", "$k"}},
	{"+multi", nil}, // the probe's own MULTI
	{"+exec", nil},  // the probe's own EXEC
	{"+subscribe", []string{"SUBSCRIBE", "$c"}},
	{"+unsubscribe", []string{"UNSUBSCRIBE", "$c"}},
	{"+publish", []string{"PUBLISH", "$c", ""}},
	{"+rpush", []string{"RPUSH", "$k", "v"}},
	{"+del", []string{"DEL", "$k"}},
	{"+mget", []string{"MGET", "$k"}},
	{"+smembers", []string{"SMEMBERS", "$k"}},
	{"+sadd", []string{"SADD", "$k", "m"}},
	{"+srem", []string{"SREM", "$k", "m"}},
	{"+scard", []string{"SCARD", "$k"}},
	{"+smismember", []string{"SMISMEMBER", "$k", "m"}},
	{"+sismember", []string{"SISMEMBER", "$k", "m"}},
	{"+hget", []string{"HGET", "$k", "f"}},
	{"+hset", []string{"HSET", "$k", "f", "v"}},
	{"+hsetnx", []string{"HSETNX", "$k", "f", "v"}},
	{"+hdel", []string{"HDEL", "$k", "f"}},
	{"+hexists", []string{"HEXISTS", "$k", "f"}},
	{"+hgetall", []string{"HGETALL", "$k"}},
	{"+hmget", []string{"HMGET", "$k", "f"}},
	{"+hincrby", []string{"HINCRBY", "$k", "f", "1"}},
	{"+hkeys", []string{"HKEYS", "$k"}},
	{"+hlen", []string{"HLEN", "$k"}},
	{"+incr", []string{"INCR", "$k"}},
	{"+incrby", []string{"INCRBY", "$k", "1"}},
	{"+get", []string{"GET", "$k"}},
	{"+set", []string{"SET", "$k", "v"}},
	{"+lindex", []string{"LINDEX", "$k", "0"}},
	{"+llen", []string{"LLEN", "$k"}},
	{"+lpop", []string{"LPOP", "$k"}},
	{"+lpush", []string{"LPUSH", "$k", "v"}},
	{"+lrange", []string{"LRANGE", "$k", "0", "0"}},
	{"+lrem", []string{"LREM", "$k", "0", "v"}},
	{"+ltrim", []string{"LTRIM", "$k", "0", "0"}},
	{"+zadd", []string{"ZADD", "$k", "0", "m"}},
	{"+zcard", []string{"ZCARD", "$k"}},
	{"+zcount", []string{"ZCOUNT", "$k", "0", "0"}},
	{"+zmscore", []string{"ZMSCORE", "$k", "m"}},
	{"+zrange", []string{"ZRANGE", "$k", "0", "0"}},
	{"+zrangebyscore", []string{"ZRANGEBYSCORE", "$k", "0", "0"}},
	{"+zrangebylex", []string{"ZRANGEBYLEX", "$k", "-", "+"}},
	{"+zlexcount", []string{"ZLEXCOUNT", "$k", "-", "+"}},
	{"+zrevrange", []string{"ZREVRANGE", "$k", "0", "0"}},
	{"+zrem", []string{"ZREM", "$k", "m"}},
	{"+zremrangebyscore", []string{"ZREMRANGEBYSCORE", "$k", "0", "0"}},
	{"+zscore", []string{"ZSCORE", "$k", "m"}},
	{"+exists", []string{"EXISTS", "$k"}},
	{"+xadd", []string{"XADD", "$k", "*", "f", "v"}},
	{"+xrange", []string{"XRANGE", "$k", "-", "+"}},
	{"+xrevrange", []string{"XREVRANGE", "$k", "+", "-"}},
	{"+hscan", []string{"HSCAN", "$k", "0"}},
	{"+unlink", []string{"UNLINK", "$k"}},
	{"+memory|usage", []string{"MEMORY", "USAGE", "$k"}},
	{"+rename", []string{"RENAME", "$k", "$k"}},
	{"+pexpire", []string{"PEXPIRE", "$k", "1000"}},
	{"+persist", []string{"PERSIST", "$k"}},
}

// clusterProbes are the rules a Store needs on every node of a Redis
// Cluster besides aclProbes (doc.go: go-redis reads the slot map and the
// commands' key positions).
var clusterProbes = []struct {
	rule string
	args []string
}{
	{"+cluster|slots", []string{"CLUSTER", "SLOTS"}},
	{"+command", []string{"COMMAND"}},
}

// ACLRules returns the ACL rules a Store with prefix needs, in the order
// of the ACL SETUSER line of the package documentation (Access control):
// the key patterns "~{<prefix>:*" (every queue's keys) and "~{<prefix>}:*"
// (the store-wide keys), the channel pattern "&<prefix>:*", then one
// "+command" or "+command|subcommand" per command. With cluster it adds
// "+cluster|slots" and "+command", needed on every node of a Redis
// Cluster. It returns a new slice on each call.
func ACLRules(prefix string, cluster bool) []string {
	rules := []string{"~{" + prefix + ":*", "~{" + prefix + "}:*", "&" + prefix + ":*"}
	for _, p := range aclProbes {
		rules = append(rules, p.rule)
	}
	if cluster {
		for _, p := range clusterProbes {
			rules = append(rules, p.rule)
		}
	}
	return rules
}

// ACLNode is what CheckACL found on one server.
type ACLNode struct {
	// Addr is the server, as the client reaches it.
	Addr string
	// Checked counts the rules asked about (len(ACLRules)) when the check
	// ran to its end; fewer when it stopped early (see Incomplete).
	Checked int
	// Denied lists the rules the connected user lacks, each once, in the
	// order of ACLRules; empty when the user holds them all.
	Denied []ACLDenial
	// Incomplete says why some rules could not be asked about (the probe
	// needs MULTI); empty when every rule was.
	Incomplete string
}

// ACLDenial is a rule of ACLRules the connected user lacks.
type ACLDenial struct {
	// Rule is the missing rule, as ACLRules spells it.
	Rule string
	// Command is the first command (upper case, with its subcommand)
	// that the server refused for it.
	Command string
	// Reply is the server's reply to it (NOPERM ...).
	Reply string
	// Slower is true for a rule the Store works without, at more Redis
	// CPU per call: +function|load (the scripts run as plain scripts)
	// and +pttl (an enqueue reads TIME and the queue's marks). Without
	// any other rule some calls fail with NOPERM.
	Slower bool
}

// slowerWithout are the rules of ACLDenial.Slower.
var slowerWithout = map[string]bool{"+function|load": true, "+pttl": true}

// CheckACL asks every master of a Redis Cluster (every shard of a Ring,
// the one server of a Client) whether the connected user holds each rule
// of ACLRules(Prefix, cluster): whether it may send each command a Store
// sends, with keys of a queue and store-wide keys of the prefix, and the
// channels of the prefix. The Store's scripts are covered too, since
// Redis checks every command a script runs against the same rules.
//
// Nothing is run: on a connection of its own, closed at the end, CheckACL
// sends MULTI, then every command inside the transaction, where Redis
// checks the ACL as each is queued (a refusal is a NOPERM reply naming the
// command, the keys or the channels), then a malformed command and EXEC,
// which discards the transaction. It needs no rights beyond the ones it
// checks (ACL DRYRUN and ACL GETUSER need administrative rights a Store's
// user should not have). A user without +multi cannot be checked further:
// the node's Incomplete says so. The keys named are of a queue "#check",
// which no queue can be named. It returns the nodes sorted as the client
// lists them, and an error when a node cannot be reached. Safe for
// concurrent use.
func (s *Store) CheckACL(ctx context.Context) ([]ACLNode, error) {
	var nodes []*redis.Client
	var mu sync.Mutex
	add := func(_ context.Context, c *redis.Client) error {
		mu.Lock()
		nodes = append(nodes, c)
		mu.Unlock()
		return nil
	}
	var err error
	cluster := false
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		cluster = true
		err = c.ForEachMaster(ctx, add)
	case *redis.Ring:
		err = c.ForEachShard(ctx, add)
	case *redis.Client:
		nodes = append(nodes, c)
	default:
		return nil, fmt.Errorf("redisstore: unsupported client type %T", s.rdb)
	}
	if err != nil {
		return nil, wrap("acl check", err)
	}
	out := make([]ACLNode, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() { out[i], errs[i] = s.checkNodeACL(ctx, n, cluster) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, wrap("acl check", err)
	}
	return out, nil
}

// checkNodeACL runs CheckACL's probe on one server, on a client of its
// own so that a transaction left open (EXEC refused) dies with it.
func (s *Store) checkNodeACL(ctx context.Context, node *redis.Client, cluster bool) (ACLNode, error) {
	o := *node.Options()
	o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 0
	// What the node's client made for itself is not shared.
	o.PushNotificationProcessor, o.ClientSideCache, o.ClientSideCacheConfig = nil, nil, nil
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	probe := redis.NewClient(&o)
	defer probe.Close()
	cn := probe.Conn()
	defer cn.Close()
	res := ACLNode{Addr: o.Addr}
	denied := map[string]bool{}
	deny := func(rule, command string, err error) {
		if !denied[rule] {
			denied[rule] = true
			res.Denied = append(res.Denied, ACLDenial{Rule: rule, Command: command, Reply: err.Error(), Slower: slowerWithout[rule]})
		}
	}
	// MULTI twice: the second is refused as nested only inside a
	// transaction, which proves this connection holds one before any
	// command that would write is sent.
	open, _ := cn.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "MULTI")
		p.Do(ctx, "MULTI")
		return nil
	})
	if err := open[0].Err(); err != nil {
		if !isNoPerm(err) {
			return res, fmt.Errorf("%s: MULTI: %w", o.Addr, err)
		}
		deny("+multi", "MULTI", err)
		res.Incomplete = "without MULTI the other rights cannot be checked"
		return res, nil
	}
	if err := open[1].Err(); err == nil || !strings.Contains(err.Error(), "nested") {
		return res, fmt.Errorf("%s: the connection did not hold the transaction MULTI opened (%v)", o.Addr, err)
	}
	type sent struct {
		rule, key string // the command's rule; the key pattern its keys need
		cmd       *redis.Cmd
	}
	rules := ACLRules(s.opts.Prefix, cluster)
	qkey, gkey := "{"+s.opts.Prefix+":#check}:probe", s.g.tag+"#check"
	channel := s.opts.Prefix + ":check"
	var probes []sent
	cmds, _ := cn.Pipelined(ctx, func(p redis.Pipeliner) error {
		queue := func(rule string, words []string) {
			for _, keys := range []struct{ key, rule string }{{qkey, rules[0]}, {gkey, rules[1]}} {
				args := make([]any, len(words))
				keyed := false
				for i, w := range words {
					switch w {
					case "$k":
						args[i], keyed = keys.key, true
					case "$c":
						args[i] = channel
					default:
						args[i] = w
					}
				}
				probes = append(probes, sent{rule, keys.rule, p.Do(ctx, args...)})
				if !keyed {
					return
				}
			}
		}
		for _, pr := range aclProbes {
			if pr.args != nil {
				queue(pr.rule, pr.args)
			}
		}
		if cluster {
			for _, pr := range clusterProbes {
				queue(pr.rule, pr.args)
			}
		}
		p.Do(ctx, "GET") // malformed: EXEC then discards the transaction
		p.Do(ctx, "EXEC")
		return nil
	})
	for _, pr := range probes {
		err := pr.cmd.Err()
		if err == nil {
			if v, _ := pr.cmd.Val().(string); v != "QUEUED" {
				return res, fmt.Errorf("%s: %v answered %v outside the transaction", o.Addr, pr.cmd.Args(), pr.cmd.Val())
			}
			continue
		}
		if !isNoPerm(err) {
			continue // refused for another reason (MOVED on a Cluster): the ACL passed
		}
		name := commandName(pr.cmd.Args())
		// "... to run the 'hkeys' command", "... to access one of the
		// keys (channels) used as arguments" (Redis 7.2: "a key").
		switch msg := strings.ToLower(err.Error()); {
		case strings.Contains(msg, " command"):
			deny(pr.rule, name, err)
		case strings.Contains(msg, "channel"):
			deny(rules[2], name, err)
		default:
			deny(pr.key, name, err)
		}
	}
	// A refused EXEC answers NOPERM, or (Redis 7.0) EXECABORT "because
	// of: NOPERM ...".
	if err := cmds[len(cmds)-1].Err(); err != nil && strings.Contains(err.Error(), "NOPERM") {
		deny("+exec", "EXEC", err)
	}
	res.Denied = sortedByRule(res.Denied, rules)
	res.Checked = len(rules)
	return res, nil
}

// isNoPerm reports an ACL refusal.
func isNoPerm(err error) bool { return err != nil && redis.HasErrorPrefix(err, "NOPERM") }

// commandName names a command by its first words: "LPOP", "CONFIG GET".
func commandName(args []any) string {
	name := strings.ToUpper(fmt.Sprint(args[0]))
	switch name {
	case "CONFIG", "FUNCTION", "SCRIPT", "MEMORY", "CLUSTER":
		if len(args) > 1 {
			name += " " + strings.ToUpper(fmt.Sprint(args[1]))
		}
	}
	return name
}

// sortedByRule orders denials as rules lists their rules.
func sortedByRule(d []ACLDenial, rules []string) []ACLDenial {
	var out []ACLDenial
	for _, r := range rules {
		for _, x := range d {
			if x.Rule == r {
				out = append(out, x)
			}
		}
	}
	return out
}

// FunctionsRefused reports whether a server refused FUNCTION LOAD in the
// Store's check (Check, or the first operation), so that the Store calls
// its scripts as plain scripts (EVALSHA), which costs Redis more CPU per
// call. False before the check has loaded anything, and with
// Config.NoFunctions. Safe for concurrent use.
func (s *Store) FunctionsRefused() bool { return s.fmode.refused.Load() }
