package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/redisstore"
)

// The thresholds of hopper check, written once (docs/production-checklist.md
// explains each).
const (
	skewWarn      = 500 * time.Millisecond // clock skew that deserves a look
	skewFail      = 2 * time.Second        // beyond it leases and due times shift visibly
	latencyWarn   = 5 * time.Millisecond   // median PING round trip
	headroomWarn  = 0.20                   // free share of maxmemory
	headroomFail  = 0.05                   // below it enqueues are about to be refused
	bytesPerJob   = 600                    // a generous per-job estimate for the backlog (220 B measured, events and index add more)
	latencyProbes = 20
)

// verdict is how one line of the check came out.
type verdict int

const (
	vOK verdict = iota
	vWarn
	vFail
)

func (v verdict) String() string {
	return [...]string{"ok", "warn", "FAIL"}[v]
}

// checkLine is one line of the report: what was checked, on which node,
// the value read and, for a warning or a failure, why and what to do.
type checkLine struct {
	node, what string
	v          verdict
	value, why string
}

// checkNode is one server the check reads: a single server, or a master
// of a Cluster.
type checkNode struct {
	addr string
	c    *redis.Client
}

const checkUsage = `hopper check [flags]

Connects to Redis as the workers do and reports, a verdict per line, whether
it is fit for hopper: server version and functions, maxmemory-policy,
persistence, cluster coverage, replicas and WAIT, ACL rights for the key
prefix, the stored layout, clock skew, round-trip latency and memory headroom.
Exits 1 when a line FAILs (or warns, with --strict), 0 otherwise.`

// runCheck is "hopper check".
func runCheck(ctx context.Context, a *app, args []string) error {
	fs := newFlags("check", checkUsage, a.stderr)
	sf := addStoreFlags(fs)
	strict := fs.Bool("strict", false, "exit 1 on a warning too")
	aclUser := fs.String("acl-user", "", "check this ACL user's rights (the user your workers connect as) instead of the connected one's; needs a connection allowed to run ACL DRYRUN")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	rdb, err := dialRedis(ctx, sf)
	if err != nil {
		fmt.Fprintf(a.stdout, "%-5s %-22s %v\n", vFail, "reach", err)
		return errors.New("Redis cannot be reached")
	}
	defer rdb.Close()
	lines := gatherChecks(ctx, rdb, sf.prefix, *aclUser)
	fails, warns := printChecks(a.stdout, lines)
	switch {
	case fails > 0:
		return fmt.Errorf("%d problem(s), %d warning(s): not fit for hopper as it is", fails, warns)
	case *strict && warns > 0:
		return fmt.Errorf("%d warning(s) (--strict)", warns)
	}
	return nil
}

// printChecks writes the report and counts failures and warnings.
func printChecks(w io.Writer, lines []checkLine) (fails, warns int) {
	many := false
	for _, l := range lines {
		if l.node != "" && l.node != lines[0].node {
			many = true
		}
	}
	for _, l := range lines {
		what := l.what
		if many && l.node != "" {
			what = l.node + " " + what
		}
		fmt.Fprintf(w, "%-5s %-22s %s", l.v, what, l.value)
		if l.why != "" {
			fmt.Fprintf(w, " — %s", l.why)
		}
		fmt.Fprintln(w)
		switch l.v {
		case vFail:
			fails++
		case vWarn:
			warns++
		}
	}
	fmt.Fprintf(w, "%d ok, %d warning(s), %d problem(s)\n", len(lines)-fails-warns, warns, fails)
	return fails, warns
}

// gatherChecks reads every node and the store.
func gatherChecks(ctx context.Context, rdb redis.UniversalClient, prefix, aclUser string) []checkLine {
	var nodes []checkNode
	cluster := false
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		cluster = true
		var mu sync.Mutex
		_ = c.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			nodes = append(nodes, checkNode{addr: n.Options().Addr, c: n})
			return nil
		})
		slices.SortFunc(nodes, func(a, b checkNode) int { return strings.Compare(a.addr, b.addr) })
	case *redis.Client:
		nodes = []checkNode{{addr: c.Options().Addr, c: c}}
	}
	var lines []checkLine
	for _, n := range nodes {
		lines = append(lines, checkServer(ctx, n, cluster)...)
	}
	if cluster {
		lines = append(lines, checkCoverage(ctx, nodes)...)
	}
	lines = append(lines, checkACL(ctx, rdb, prefix, aclUser, cluster))
	lines = append(lines, checkLayout(ctx, rdb, prefix))
	if len(nodes) > 0 {
		lines = append(lines, checkClock(ctx, nodes[0]), checkLatency(ctx, nodes[0]))
	}
	lines = append(lines, checkHeadroom(ctx, rdb, prefix, nodes)...)
	return lines
}

// configGet reads one setting; "" when it cannot be read.
func configGet(ctx context.Context, c *redis.Client, name string) (string, error) {
	m, err := c.ConfigGet(ctx, name).Result()
	if err != nil {
		return "", err
	}
	return m[name], nil
}

// infoField reads one field of an INFO section.
func infoField(ctx context.Context, c *redis.Client, section, field string) (string, error) {
	s, err := c.Info(ctx, section).Result()
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(s) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("INFO %s has no %s", section, field)
}

// checkServer checks one node: version, functions, eviction policy,
// persistence, replicas and WAIT.
func checkServer(ctx context.Context, n checkNode, cluster bool) []checkLine {
	line := func(what string, v verdict, value, why string) checkLine {
		return checkLine{node: n.addr, what: what, v: v, value: value, why: why}
	}
	var out []checkLine

	ver, err := infoField(ctx, n.c, "server", "redis_version")
	switch {
	case err != nil:
		out = append(out, line("server version", vWarn, "unknown", "INFO refused ("+err.Error()+"); hopper needs Redis 7.0 or newer"))
	case !atLeast7(ver):
		out = append(out, line("server version", vFail, ver, "hopper needs Redis 7.0 or newer"))
	default:
		out = append(out, line("server version", vOK, ver, ""))
	}
	if err := n.c.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", "hopper_").Err(); err != nil {
		out = append(out, line("functions", vWarn, "unavailable", "FUNCTION LIST failed ("+err.Error()+"); hopper runs its scripts with EVALSHA, about 40,000 more instructions per call"))
	} else {
		out = append(out, line("functions", vOK, "supported", ""))
	}

	policy, err := configGet(ctx, n.c, "maxmemory-policy")
	switch {
	case err != nil:
		out = append(out, line("maxmemory-policy", vWarn, "unknown", "CONFIG GET refused ("+err.Error()+"); it must be noeviction"))
	case policy != "noeviction":
		out = append(out, line("maxmemory-policy", vFail, policy, "an evicted key loses jobs; set maxmemory-policy noeviction"))
	default:
		out = append(out, line("maxmemory-policy", vOK, policy, ""))
	}

	aof, err1 := configGet(ctx, n.c, "appendonly")
	fsync, err2 := configGet(ctx, n.c, "appendfsync")
	save, err3 := configGet(ctx, n.c, "save")
	switch {
	case err1 != nil || err2 != nil || err3 != nil:
		out = append(out, line("persistence", vWarn, "unknown", "CONFIG GET refused; hopper needs appendonly yes"))
	case aof == "yes" && fsync == "no":
		out = append(out, line("persistence", vWarn, "AOF, appendfsync no", "the OS flushes when it likes (about 30 s on Linux): a machine crash loses that much; set appendfsync everysec"))
	case aof == "yes":
		out = append(out, line("persistence", vOK, "AOF, appendfsync "+fsync, ""))
	case strings.TrimSpace(save) != "":
		out = append(out, line("persistence", vWarn, "RDB only (save "+save+")", "a crash loses every enqueue and ack since the last snapshot; set appendonly yes"))
	default:
		out = append(out, line("persistence", vFail, "none (no AOF, no RDB save points)", "a restart loses every job; set appendonly yes"))
	}

	replicas, err := infoField(ctx, n.c, "replication", "connected_slaves")
	switch {
	case err != nil:
		out = append(out, line("replicas", vWarn, "unknown", "INFO refused"))
	case replicas == "0":
		why := "a lost server loses every job and nothing takes over; add a replica with Sentinel"
		if cluster {
			why = "a master that dies stops its queues until it comes back; give every master a replica"
		}
		out = append(out, line("replicas", vWarn, "0", why))
	default:
		out = append(out, line("replicas", vOK, replicas, ""))
	}
	if err := n.c.Do(ctx, "WAIT", 0, 0).Err(); err != nil {
		out = append(out, line("WAIT", vWarn, "refused", "redisstore.Config.Replicas cannot wait for replicas ("+err.Error()+")"))
	} else {
		out = append(out, line("WAIT", vOK, "supported", ""))
	}
	return out
}

// atLeast7 reports whether a version string is 7.0 or newer.
func atLeast7(v string) bool {
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 7
}

// checkCoverage reads cluster-require-full-coverage on the masters.
func checkCoverage(ctx context.Context, nodes []checkNode) []checkLine {
	for _, n := range nodes {
		v, err := configGet(ctx, n.c, "cluster-require-full-coverage")
		if err != nil {
			return []checkLine{{what: "cluster coverage", v: vWarn, value: "unknown", why: "CONFIG GET refused; set cluster-require-full-coverage no"}}
		}
		if v != "no" {
			return []checkLine{{node: n.addr, what: "cluster coverage", v: vWarn, value: "cluster-require-full-coverage " + v,
				why: "one failed master stops every queue of the cluster; with no, only its own queues stop"}}
		}
	}
	return []checkLine{{what: "cluster coverage", v: vOK, value: "cluster-require-full-coverage no"}}
}

// checkACL asks the server, with ACL DRYRUN, whether the user (the
// connected one unless user is set) may run every command hopper needs on
// a key under the prefix.
func checkACL(ctx context.Context, rdb redis.UniversalClient, prefix, user string, cluster bool) checkLine {
	if user == "" {
		u, err := rdb.Do(ctx, "ACL", "WHOAMI").Text()
		if err != nil {
			return checkLine{what: "ACL rights", v: vWarn, value: "not checked",
				why: "ACL WHOAMI refused (" + err.Error() + "): a restricted user; run hopper check from an admin connection with --acl-user NAME to check its rights"}
		}
		user = u
	}
	cmds := redisstore.RequiredCommands()
	if cluster {
		cmds = append(cmds, redisstore.ClusterCommands()...)
	}
	key := "{" + prefix + ":check}:k"
	var missing []string
	for _, cmd := range cmds {
		args, err := dryRunArgs(ctx, rdb, cmd, key, prefix+":check")
		if err != nil {
			return checkLine{what: "ACL rights", v: vWarn, value: "not checked", why: "COMMAND INFO refused (" + err.Error() + ")"}
		}
		res, err := rdb.Do(ctx, append([]any{"ACL", "DRYRUN", user}, args...)...).Text()
		if err != nil {
			if strings.Contains(err.Error(), "NOPERM") && strings.Contains(err.Error(), "acl|dryrun") {
				return checkLine{what: "ACL rights", v: vWarn, value: "not checked",
					why: "ACL DRYRUN refused: run hopper check from an admin connection with --acl-user " + user}
			}
			return checkLine{what: "ACL rights", v: vWarn, value: "not checked", why: "ACL DRYRUN " + cmd + ": " + err.Error()}
		}
		if res != "OK" {
			missing = append(missing, "+"+cmd)
		}
	}
	if len(missing) > 0 {
		return checkLine{what: "ACL rights", v: vFail, value: "user " + user + " lacks " + strings.Join(missing, " "),
			why: "calls that need them fail with ErrNoPerm; add them (the ACL SETUSER line is in redisstore's Access control)"}
	}
	return checkLine{what: "ACL rights", v: vOK, value: fmt.Sprintf("user %s has the %d commands on %s*", user, len(cmds), "{"+prefix+":")}
}

// dryRunArgs builds a command line for ACL DRYRUN: the command (and
// subcommand), the key where the command takes one (the channel for
// pub/sub commands), and filler up to its arity, read from COMMAND INFO.
func dryRunArgs(ctx context.Context, rdb redis.UniversalClient, cmd, key, channel string) ([]any, error) {
	name, sub, hasSub := strings.Cut(cmd, "|")
	info, err := rdb.Do(ctx, "COMMAND", "INFO", cmd).Slice()
	if err != nil {
		return nil, err
	}
	arity, firstKey := 2, int64(1)
	if len(info) == 1 {
		if d, ok := info[0].([]any); ok && len(d) >= 4 {
			if a, ok := d[1].(int64); ok {
				arity = int(a)
			}
			if k, ok := d[3].(int64); ok {
				firstKey = k
			}
		}
	}
	if arity < 0 {
		arity = -arity
	}
	args := []any{name}
	if hasSub {
		args = append(args, sub)
	}
	if name == "subscribe" || name == "unsubscribe" || name == "publish" {
		args = append(args, channel)
	}
	for len(args) < arity {
		if int64(len(args)) == firstKey {
			args = append(args, key)
		} else {
			args = append(args, "0")
		}
	}
	return args, nil
}

// checkLayout compares the stored layout with this binary's.
func checkLayout(ctx context.Context, rdb redis.UniversalClient, prefix string) checkLine {
	st, err := redisstore.New(rdb, &redisstore.Config{Prefix: prefix}).Layout(ctx)
	if err != nil {
		return checkLine{what: "stored layout", v: vFail, value: "unreadable", why: err.Error()}
	}
	switch {
	case st.Fresh:
		return checkLine{what: "stored layout", v: vOK, value: fmt.Sprintf("no data under %q yet (this release writes layout %d)", prefix, st.Current)}
	case st.Stored > st.Current:
		return checkLine{what: "stored layout", v: vFail, value: fmt.Sprintf("layout %d, this release reads %d to %d", st.Stored, st.OldestReadable, st.Current),
			why: "written by a newer hopper; upgrade this binary"}
	case st.Stored < st.OldestReadable:
		return checkLine{what: "stored layout", v: vFail, value: fmt.Sprintf("layout %d, this release reads %d to %d", st.Stored, st.OldestReadable, st.Current),
			why: "run hopper migrate up with a release that reads it"}
	case st.Stored < st.Current:
		return checkLine{what: "stored layout", v: vWarn, value: fmt.Sprintf("layout %d, this release writes %d", st.Stored, st.Current),
			why: "migration pending: once every worker runs this release, run hopper migrate up"}
	}
	return checkLine{what: "stored layout", v: vOK, value: fmt.Sprintf("layout %d, current", st.Stored)}
}

// checkClock compares the server's clock with this machine's, allowing for
// half the round trip.
func checkClock(ctx context.Context, n checkNode) checkLine {
	before := time.Now()
	t, err := n.c.Time(ctx).Result()
	after := time.Now()
	if err != nil {
		return checkLine{what: "clock skew", v: vWarn, value: "unknown", why: "TIME refused: " + err.Error()}
	}
	mid := before.Add(after.Sub(before) / 2)
	skew := t.Sub(mid)
	abs := skew
	if abs < 0 {
		abs = -abs
	}
	value := fmt.Sprintf("%v (server minus this machine)", skew.Round(time.Millisecond))
	why := "hopper runs on the store's clock, so a skewed worker runs nothing early; but after a failover the new master's clock rules: keep every clock on NTP"
	switch {
	case abs > skewFail:
		return checkLine{what: "clock skew", v: vFail, value: value, why: why}
	case abs > skewWarn:
		return checkLine{what: "clock skew", v: vWarn, value: value, why: why}
	}
	return checkLine{what: "clock skew", v: vOK, value: value}
}

// checkLatency measures the median PING round trip.
func checkLatency(ctx context.Context, n checkNode) checkLine {
	var rtts []time.Duration
	for range latencyProbes {
		start := time.Now()
		if err := n.c.Ping(ctx).Err(); err != nil {
			return checkLine{what: "round trip", v: vWarn, value: "unknown", why: err.Error()}
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	med := rtts[len(rtts)/2]
	value := fmt.Sprintf("median %v of %d PINGs", med.Round(10*time.Microsecond), latencyProbes)
	if med > latencyWarn {
		return checkLine{what: "round trip", v: vWarn, value: value, why: "every enqueue is a round trip: put workers and producers near Redis, or enqueue in batches"}
	}
	return checkLine{what: "round trip", v: vOK, value: value}
}

// checkHeadroom compares used memory with maxmemory on each node, and the
// current backlog with what is left.
func checkHeadroom(ctx context.Context, rdb redis.UniversalClient, prefix string, nodes []checkNode) []checkLine {
	var jobs int64
	insp := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	if qs, err := insp.ListQueues(ctx); err == nil {
		for _, q := range qs {
			if st, err := insp.GetQueueStats(ctx, q); err == nil {
				c := st.Counts
				jobs += c.Pending + c.Ready + c.Unack + c.Retry + c.Garbage + c.Done
			}
		}
	}
	var out []checkLine
	for _, n := range nodes {
		maxS, err1 := configGet(ctx, n.c, "maxmemory")
		usedS, err2 := infoField(ctx, n.c, "memory", "used_memory")
		maxM, _ := strconv.ParseInt(maxS, 10, 64)
		used, _ := strconv.ParseInt(usedS, 10, 64)
		backlog := fmt.Sprintf("%d jobs stored", jobs)
		switch {
		case err1 != nil || err2 != nil:
			out = append(out, checkLine{node: n.addr, what: "memory headroom", v: vWarn, value: "unknown", why: "CONFIG GET or INFO refused"})
		case maxM == 0:
			out = append(out, checkLine{node: n.addr, what: "memory headroom", v: vWarn, value: fmt.Sprintf("no maxmemory, %s used, %s", mib(used), backlog),
				why: "without a limit the OS kills Redis first; set maxmemory with room for your largest backlog"})
		default:
			free := float64(maxM-used) / float64(maxM)
			value := fmt.Sprintf("%.0f%% free (%s of %s used), %s, room for about %d more", free*100, mib(used), mib(maxM), backlog, max(0, (maxM-used)/bytesPerJob))
			switch {
			case free < headroomFail:
				out = append(out, checkLine{node: n.addr, what: "memory headroom", v: vFail, value: value, why: "enqueues are about to be refused (ErrOOM); raise maxmemory or drain"})
			case free < headroomWarn:
				out = append(out, checkLine{node: n.addr, what: "memory headroom", v: vWarn, value: value, why: "less than 20% free: a burst may fill it"})
			default:
				out = append(out, checkLine{node: n.addr, what: "memory headroom", v: vOK, value: value})
			}
		}
	}
	return out
}

// mib formats bytes as MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
