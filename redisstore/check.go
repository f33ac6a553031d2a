package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
	err := s.checkServer(ctx)
	s.record(err)
	return err
}

// ensureChecked runs the check unless it passed or failed for good.
func (s *Store) ensureChecked(ctx context.Context) error {
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
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
	if err := s.checkNodes(ctx); err != nil {
		return err
	}
	if err := s.checkLayout(ctx); err != nil {
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
	return nil
}

// checkNodes checks every node that holds data and loads the partitioned
// queues: all the check but the layout. Once it passed, nodesOK is set
// (prepareAdmin).
func (s *Store) checkNodes(ctx context.Context) error {
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, s.checkNode)
	case *redis.Ring:
		err = c.ForEachShard(ctx, s.checkNode)
	case *redis.Client:
		err = s.checkNode(ctx, c)
	default:
		return fmt.Errorf("redisstore: unsupported client type %T", s.rdb)
	}
	if err != nil && !errors.Is(err, ErrUnsupportedServer) {
		return wrap("server check", err)
	}
	if err == nil {
		s.fmode.on.Store(!s.opts.NoFunctions && !s.fmode.refused.Load())
		err = s.syncPartitions(ctx)
		if err != nil && !errors.Is(err, errPartitions) {
			err = wrap("server check", err)
		}
	}
	if err == nil {
		s.nodesOK.Store(true)
	}
	return err
}

func (s *Store) checkNode(ctx context.Context, c *redis.Client) error {
	addr := c.Options().Addr
	info, err := c.Info(ctx, "server").Result()
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
	policy, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
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
	if !s.opts.NoFunctions && !s.fmode.refused.Load() {
		err := s.loadLibraries(ctx, c)
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
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
	if s.checked.Load() || s.nodesOK.Load() {
		return nil
	}
	if s.checkErr != nil && !errors.Is(s.checkErr, ErrLayout) {
		return s.checkErr
	}
	err := s.checkNodes(ctx)
	if err != nil && (errors.Is(err, ErrUnsupportedServer) || errors.Is(err, errPartitions)) {
		s.checkErr = err
	}
	return err
}
