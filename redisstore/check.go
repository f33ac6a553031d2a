package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Minimum server version.
const minMajor, minMinor = 7, 0

// Check checks the server now: its version (an error wrapping
// ErrUnsupportedServer before Redis 7.0), its maxmemory-policy (a warning
// through Config.Logger unless it is noeviction, because an evicted key
// loses jobs) and it loads the scripts. On a cluster it checks every
// master. When ACL denies INFO or CONFIG GET (NOPERM), it logs that the
// check could not run and goes on. Every Store runs Check once by itself
// before its first operation (again later if the server could not be
// reached); call it at start-up to fail early. It also checks the data
// layout stored in Redis (layout.go): on a fresh Redis it stores
// LayoutVersion; it refuses a layout this release cannot read with an
// error wrapping ErrLayout.
func (s *Store) Check(ctx context.Context) error {
	if err := s.checkMu.lock(ctx); err != nil {
		return err
	}
	defer s.checkMu.unlock()
	err := s.checkServer(ctx)
	s.record(err)
	return err
}

// ensureChecked runs the check unless it passed or failed for good.
func (s *Store) ensureChecked(ctx context.Context) error {
	if err := s.checkMu.lock(ctx); err != nil {
		return err
	}
	defer s.checkMu.unlock()
	if s.checked.Load() {
		return nil
	}
	if s.checkErr != nil {
		return s.checkErr
	}
	err := s.checkServer(ctx)
	s.record(err)
	return err
}

// record keeps the outcome of a check: passed, failed for good, or (any
// other error, such as an unreachable server) to be tried again.
func (s *Store) record(err error) {
	switch {
	case err == nil:
		s.checkErr = nil
		s.checked.Store(true)
	case errors.Is(err, ErrUnsupportedServer), errors.Is(err, errPartitions), errors.Is(err, ErrLayout):
		s.checkErr = err
		s.checked.Store(false)
	}
}

// checkServer checks every node that holds data, then the stored layout
// (layout.go).
func (s *Store) checkServer(ctx context.Context) error {
	pre, err := s.checkNodes(ctx)
	if err != nil {
		return err
	}
	if err := s.checkLayout(ctx, pre.layout); err != nil {
		if redis.IsPermissionError(err) {
			// As for INFO: an ACL that denies the store-wide keys
			// costs the check, not the store.
			s.opts.Logger.Warn("redisstore: cannot check or store the data layout (denied by ACL); run `hopper migrate status` as a user that may read and write the store-wide keys",
				"prefix", s.opts.Prefix, "error", err)
			return nil
		}
		if !errors.Is(err, ErrLayout) {
			err = wrap("layout check", err)
		}
		return err
	}
	s.baseMark(ctx, pre.lost) // the data's mark (layout_restore.go)
	return nil
}

// checkNodes checks every node that holds data and loads the partitioned
// queues: all the check but the layout. Once it passed, nodesOK is set
// (prepareAdmin). It returns the reads of the store-wide keys it sent
// with their node's (nodeReads): with a plain client or a Cluster, not a
// Ring.
func (s *Store) checkNodes(ctx context.Context) (*nodeReads, error) {
	var err error
	pre := &nodeReads{}
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		pre, err = s.checkMasters(ctx, c)
	case *redis.Ring:
		err = c.ForEachShard(ctx, s.checkNode)
	case *redis.Client:
		pre = s.readNode(ctx, c, true)
		err = s.checkNodeReads(ctx, c, pre)
		if pre.stale {
			pre = &nodeReads{}
		}
	default:
		return pre, fmt.Errorf("redisstore: unsupported client type %T", s.rdb)
	}
	if err != nil && !errors.Is(err, ErrUnsupportedServer) {
		return pre, wrap("server check", err)
	}
	if err == nil {
		s.fmode.on.Store(s.functionsWanted())
		err = s.syncPartitions(ctx, pre.parts)
		if err != nil && !errors.Is(err, errPartitions) {
			err = wrap("server check", err)
		}
	}
	if err == nil {
		s.nodesOK.Store(true)
	}
	return pre, err
}

// checkMasters checks every master of Cluster c, in parallel, and
// returns the reads of the store-wide keys that the master of their slot
// sent with its own (none when the slots cannot be read, or when a check
// loaded anything after them: nodeReads.stale).
func (s *Store) checkMasters(ctx context.Context, c *redis.ClusterClient) (*nodeReads, error) {
	home, herr := c.MasterForKey(ctx, s.g.layoutKey())
	var global *nodeReads // written by the home master's check alone
	var stale atomic.Bool
	err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		isHome := herr == nil && n.Options().Addr == home.Options().Addr
		r := s.readNode(ctx, n, isHome)
		if isHome {
			global = r
		}
		err := s.checkNodeReads(ctx, n, r)
		if r.stale {
			stale.Store(true)
		}
		return err
	})
	if global == nil || stale.Load() {
		global = &nodeReads{}
	}
	return global, err
}

// nodeReads are the replies to the reads a check makes of a node, sent in
// one round trip (readNode), not one each: a process's first call waits
// for them, a millisecond or more each over a network (docs/performance.md,
// "A process's first call").
type nodeReads struct {
	info     *redis.StringCmd
	policy   *redis.MapStringStringCmd
	manifest *redis.Cmd // the libraries' manifest called; nil: the store calls no functions
	// The reads of the store-wide keys, sent with the reads of the node
	// that holds them, else nil: the partitioned queues, unless
	// Config.Partitions declares some (syncPartitions writes them first),
	// and the layout (checkLayout). Their readers read again through the
	// store's client a reply that holds an error (a Cluster's slot moved
	// since, say).
	parts  *redis.MapStringStringCmd
	layout *redis.StringCmd
	lost   *redis.StringCmd // the data's mark, read with the layout (layout_restore.go)
	// failed is the error of the round trip when it failed as a whole
	// (noReply): the replies are then not the node's.
	failed error
	// stale is set when the check loaded libraries or scripts on the node
	// after its reads (its manifest missing, or plain scripts): the
	// store-wide keys' replies are then too old to use (another process
	// may have written them meanwhile), and checkNodes drops them.
	stale bool
}

// readNode sends the check's reads of node c in one pipeline; with
// global, those of the store-wide keys too. Each reply holds its own
// error.
func (s *Store) readNode(ctx context.Context, c *redis.Client, global bool) *nodeReads {
	r := &nodeReads{}
	// (Not on a Client.Conn, whose connection the enqueue that follows
	// would take instead of opening one of its own: in go-redis 9.23 a
	// Conn's first connection races with the client's on their shared
	// Options, the maintenance notifications' fallback.)
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		r.info = p.Info(ctx, "server")
		r.policy = p.ConfigGet(ctx, "maxmemory-policy")
		if s.functionsWanted() {
			fn, _ := manifest(s.shardPub)
			r.manifest = p.FCall(ctx, fn, nil)
		}
		// The store-wide keys' reads only where they may be used: a
		// check that loads plain scripts drops them (stale).
		if global && r.manifest != nil {
			if !s.declaresPartitions() {
				r.parts = p.HGetAll(ctx, s.g.partsKey())
			}
			r.layout = p.Get(ctx, s.g.layoutKey())
			r.lost = p.Get(ctx, s.g.lostKey())
		}
		return nil
	})
	if err != nil && r.noReply() {
		// The round trip failed as a whole: the connection's AUTH or
		// HELLO refused, or the connection lost. go-redis then leaves
		// the commands without an error and with empty values, which
		// would read as a server without a version and as an empty
		// layout key (ErrLayout, final).
		r.failed = err
	}
	return r
}

// noReply reports whether none of r's commands holds an error of its own
// (a pipeline's error then came from the round trip, not from a reply).
func (r *nodeReads) noReply() bool {
	return r.info.Err() == nil && r.policy.Err() == nil &&
		(r.manifest == nil || r.manifest.Err() == nil) &&
		(r.parts == nil || r.parts.Err() == nil) &&
		(r.layout == nil || r.layout.Err() == nil) &&
		(r.lost == nil || r.lost.Err() == nil)
}

// functionsWanted reports whether the store calls Redis functions: not
// with Config.NoFunctions, nor once a server refused FUNCTION LOAD.
func (s *Store) functionsWanted() bool {
	return !s.opts.NoFunctions && !s.fmode.refused.Load()
}

// checkNode checks node c of a Ring.
func (s *Store) checkNode(ctx context.Context, c *redis.Client) error {
	return s.checkNodeReads(ctx, c, s.readNode(ctx, c, false))
}

// checkNodeReads checks node c from its replies r: the server's version
// and maxmemory-policy, and the libraries, which it loads when the
// manifest was not found (loadLibraries).
func (s *Store) checkNodeReads(ctx context.Context, c *redis.Client, r *nodeReads) error {
	if r.failed != nil {
		return r.failed
	}
	addr := c.Options().Addr
	info, err := r.info.Result()
	switch {
	case redis.IsPermissionError(err):
		s.opts.Logger.Warn("redisstore: cannot check the Redis version (INFO denied by ACL); Redis 7.0 or newer is required",
			"addr", addr, "error", err)
	case err != nil:
		return err
	default:
		major, minor, ok := parseVersion(info)
		if !ok {
			s.opts.Logger.Warn("redisstore: cannot read the Redis version from INFO; Redis 7.0 or newer is required", "addr", addr)
		} else if major < minMajor || major == minMajor && minor < minMinor {
			return fmt.Errorf("%w: %s runs %d.%d", ErrUnsupportedServer, addr, major, minor)
		}
	}
	policy, err := r.policy.Result()
	switch {
	case redis.IsPermissionError(err):
		s.opts.Logger.Warn("redisstore: cannot check maxmemory-policy (CONFIG GET denied by ACL); it must be noeviction or Redis may evict jobs",
			"addr", addr, "error", err)
	case err != nil:
		return err
	default:
		if p := policy["maxmemory-policy"]; p != "" && p != "noeviction" {
			s.opts.Logger.Warn("redisstore: maxmemory-policy is not noeviction: Redis may evict keys and lose jobs",
				"addr", addr, "maxmemory-policy", p)
		}
	}
	// From here on the check loads on the node unless it found the
	// manifest: the store-wide keys' replies are then read again.
	r.stale = r.manifest == nil || r.manifest.Err() != nil
	if r.manifest != nil && s.functionsWanted() {
		err := s.loadLibraries(ctx, c, r.manifest)
		switch {
		case err == nil:
			return nil
		case refused(err):
			// ACL, a proxy or a managed service refusing FUNCTION LOAD:
			// plain scripts do the same, a little slower.
			s.fmode.refused.Store(true)
			s.opts.Logger.Warn("redisstore: the server refused FUNCTION LOAD; calling plain scripts (EVALSHA), which costs Redis more CPU per call",
				"addr", addr, "error", err)
		case classify(err) == ErrOOM:
			// A server at maxmemory refuses FUNCTION LOAD until it has
			// room. The check passes: each script is loaded on its first
			// call, and runs as a plain script while the server refuses
			// it, which the claims' and acks' allow-oom flag lets run,
			// so that workers drain the queues that filled it.
			s.pauseLoads()
			s.opts.Logger.Warn("redisstore: the server is at maxmemory and refused FUNCTION LOAD; scripts run as plain scripts (EVALSHA) until it has room",
				"addr", addr, "error", err)
			return nil
		default:
			return err
		}
	}
	preloadScripts()
	for _, sc := range s.allForServer(allScripts()) {
		// Loading ahead saves the EVAL fallback on first use. An ACL that
		// denies SCRIPT LOAD only costs that fallback.
		if err := sc.eval.Load(ctx, c).Err(); err != nil && !redis.IsPermissionError(err) {
			return err
		}
	}
	return nil
}

// parseVersion reads redis_version from INFO server output.
func parseVersion(info string) (major, minor int, ok bool) {
	for line := range strings.Lines(info) {
		v, found := strings.CutPrefix(strings.TrimSpace(line), "redis_version:")
		if !found {
			continue
		}
		parts := strings.SplitN(v, ".", 3)
		if len(parts) < 2 {
			return 0, 0, false
		}
		maj, err1 := strconv.Atoi(parts[0])
		mnr, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return 0, 0, false
		}
		return maj, mnr, true
	}
	return 0, 0, false
}

// prepareAdmin runs the check but the layout, once, for Layout and
// Migrate: they work on a Redis whose layout the check refuses. A final
// failure of the server check (ErrUnsupportedServer) is returned.
func (s *Store) prepareAdmin(ctx context.Context) error {
	if err := s.checkMu.lock(ctx); err != nil {
		return err
	}
	defer s.checkMu.unlock()
	if s.checked.Load() || s.nodesOK.Load() {
		return nil
	}
	if s.checkErr != nil && !errors.Is(s.checkErr, ErrLayout) {
		return s.checkErr
	}
	_, err := s.checkNodes(ctx)
	if err != nil && (errors.Is(err, ErrUnsupportedServer) || errors.Is(err, errPartitions)) {
		s.checkErr = err
	}
	return err
}
