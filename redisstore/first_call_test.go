package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hopperq/hopper/internal/childproc"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// firstCallAddr names the environment variable that makes
// TestFirstCallChild run: the address of the server it enqueues to.
const firstCallAddr = "HOPPER_TEST_FIRST_CALL_ADDR"

// TestFirstCallBuildsItsOwnScript: a new process whose server already
// holds hopper's libraries (an earlier process loaded them) builds, for
// its first Enqueue, the enqueue script and the queue's registration
// (partition_learn.go) alone, from their own files, not
// every library the start-up check would load on a server without them:
// its first call costs it a few milliseconds, not twenty. On a server
// without them the check builds and loads them all, as before.
func TestFirstCallBuildsItsOwnScript(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	run := func() (built, parsed, files int) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), os.Args[0])
		cmd.Env = append(os.Environ(), firstCallAddr+"="+admin.Options().Addr)
		childproc.DieWithParent(cmd)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		for line := range strings.Lines(string(out)) {
			if _, err := fmt.Sscanf(line, "built %d parsed %d of %d", &built, &parsed, &files); err == nil {
				return built, parsed, files
			}
		}
		t.Fatalf("child printed no counts:\n%s", out)
		return
	}
	onEmpty, _, _ := run()
	if onEmpty < 8 {
		t.Errorf("on a server without the libraries the first process built %d scripts, want the 8 the check loads", onEmpty)
	}
	built, parsed, files := run()
	t.Logf("first process: %d scripts built; second: %d built, %d of %d files parsed", onEmpty, built, parsed, files)
	if built != 2 {
		t.Errorf("on a server holding the libraries a new process built %d scripts for one Enqueue, want 2 (enqueue's and the registration's)", built)
	}
	if parsed*3 > files {
		t.Errorf("on a server holding the libraries a new process parsed %d of lua/'s %d files for one Enqueue, want a third or fewer", parsed, files)
	}
	if n, err := admin.LLen(t.Context(), "{"+t.Name()+":q}:r").Result(); err != nil || n != 2 {
		t.Errorf("ready jobs after both processes' Enqueue: %d, %v; want 2", n, err)
	}
}

// firstCallChild is TestFirstCallBuildsItsOwnScript's child process
// (TestMain runs it instead of the tests when firstCallAddr is set): it
// enqueues one job on the server at addr and prints what the process
// built, then returns its exit code.
func firstCallChild(addr string) int {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	s := redisstore.New(rdb, &redisstore.Config{Prefix: "TestFirstCallBuildsItsOwnScript"})
	if _, err := s.Enqueue(context.Background(), []*store.NewJob{job("q", fmt.Sprint("first-", os.Getpid()))}); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("built %d parsed %d of %d\n", redisstore.BuiltScripts(), redisstore.ParsedLuaFiles(), redisstore.LuaFiles())
	return 0
}

// TestFirstCallRoundTrips: a new Store's first Enqueue, on a server that
// holds hopper's libraries and the prefix's layout, waits for three round
// trips of hopper's: the start-up check's reads, all in one, the queue's
// registration, which says whether another process declared it
// partitioned since the check (partition_learn.go: processes started
// together missed such a declaration), and the enqueue with the queue's
// sentinels. Over a network each is a millisecond or
// more of a CLI command's, a cron job's or a serverless producer's first
// call. (The new connections' own, HELLO and CLIENT, are go-redis's,
// which its options set: listed, not counted.)
func TestFirstCallRoundTrips(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	ctx := t.Context()
	earlier := redisstore.New(admin, &redisstore.Config{Prefix: t.Name()})
	if _, err := earlier.Enqueue(ctx, []*store.NewJob{job("q", "earlier")}); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: admin.Options().Addr})
	t.Cleanup(func() { rdb.Close() })
	trips := &tripCounter{}
	rdb.AddHook(trips)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: t.Name()})
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("q2", "first")}); err != nil {
		t.Fatal(err)
	}
	all := trips.list()
	var own []string
	for _, trip := range all {
		if !strings.HasPrefix(trip, "hello") && !strings.HasPrefix(trip, "client") {
			own = append(own, trip)
		}
	}
	t.Logf("round trips, the connection's included:\n%s", strings.Join(all, "\n"))
	if len(own) != 3 || own[0] != "info config fcall hgetall get get" || own[1] != "fcall" {
		t.Errorf("a new Store's first Enqueue made %d round trips of its own, want 3: the check's reads (info config fcall hgetall get get: the layout and the loss mark), the registration (fcall), then the enqueue:\n%s",
			len(own), strings.Join(own, "\n"))
	}
	if n, err := admin.LLen(ctx, "{"+t.Name()+":q2}:r").Result(); err != nil || n != 1 {
		t.Errorf("ready jobs of the new queue: %d, %v; want 1", n, err)
	}
}

// TestFirstCallRoundTripsCluster: on a Cluster the check sends each
// master its reads in one round trip, the store-wide keys' reads with
// those of the master that holds them, so that a new Store's first
// Enqueue waits for one round trip a master in parallel and its own.
func TestFirstCallRoundTripsCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t)
	admin := c.Client(t)
	ctx := t.Context()
	prefix := redistest.Prefix(t)
	earlier := redisstore.New(admin, &redisstore.Config{Prefix: prefix})
	if _, err := earlier.Enqueue(ctx, []*store.NewJob{job("q", "earlier")}); err != nil {
		t.Fatal(err)
	}
	var masters atomic.Int64
	if err := admin.ForEachMaster(ctx, func(context.Context, *redis.Client) error { masters.Add(1); return nil }); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClusterClient(c.Options())
	t.Cleanup(func() { rdb.Close() })
	trips := &tripCounter{}
	rdb.OnNewNode(func(n *redis.Client) { n.AddHook(trips) })
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("q2", "first")}); err != nil {
		t.Fatal(err)
	}
	all := trips.list()
	var own, checks []string
	for _, trip := range all {
		switch {
		case strings.HasPrefix(trip, "hello"), strings.HasPrefix(trip, "client"), strings.HasPrefix(trip, "cluster"), trip == "command":
			// go-redis's own: a new connection's, the slots' map, the
			// commands' key positions (for routing FCALL)
		case strings.HasPrefix(trip, "info config"):
			checks = append(checks, trip)
			own = append(own, trip)
		default:
			own = append(own, trip)
		}
	}
	t.Logf("round trips on the nodes, go-redis's included:\n%s", strings.Join(all, "\n"))
	// Besides the checks, the registration's script on the store-wide
	// keys' node, then the enqueue's: the registry's SADD there, the
	// queue's sentinels and the enqueue on the queue's (three round trips
	// as go-redis sends them here). Before the check's reads went in one
	// (4659d41), 15.
	withGlobal := 0
	for _, c := range checks {
		if strings.HasSuffix(c, " hgetall get get") {
			withGlobal++
		}
	}
	if withGlobal != 1 {
		t.Errorf("%d masters' checks carried the store-wide keys' reads (hgetall get get), want 1: %q", withGlobal, checks)
	}
	if n := int(masters.Load()); len(checks) != n || len(own) > n+4 {
		t.Errorf("a new Store's first Enqueue on %d masters made %d round trips of its own, %d of them a master's check; want one check a master and at most four more:\n%s",
			n, len(own), len(checks), strings.Join(own, "\n"))
	}
}

// TestCheckReadsAgainAfterLoading: the check reads the store-wide keys
// in its first round trip, and a check that then loads the libraries (a
// server without them: a megabyte sent) reads them again, for another
// process may have written them meanwhile: here one that declares a
// partitioned queue, into whose partitions this store then enqueues.
func TestCheckReadsAgainAfterLoading(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	ctx := t.Context()
	other := redisstore.New(admin, &redisstore.Config{Prefix: t.Name(), Partitions: map[string]int{"hot": 3}})
	rdb := redis.NewClient(&redis.Options{Addr: admin.Options().Addr})
	t.Cleanup(func() { rdb.Close() })
	var once sync.Once
	rdb.AddHook(afterPipeline(func(cmds []redis.Cmder) {
		if cmds[0].Name() != "info" {
			return // a new connection's, go-redis's own
		}
		// Between the check's reads and its load of the libraries.
		once.Do(func() {
			if err := other.Check(ctx); err != nil {
				t.Errorf("the other process's check: %v", err)
			}
		})
	}))
	s := redisstore.New(rdb, &redisstore.Config{Prefix: t.Name()})
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("hot", "a")}); err != nil {
		t.Fatal(err)
	}
	parts, err := admin.Keys(ctx, "{"+t.Name()+":hot~*}:j").Result()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := admin.Exists(ctx, "{"+t.Name()+":hot}:j").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || whole != 0 {
		t.Errorf("a job enqueued into a queue another process declared with 3 partitions while this one's check loaded the libraries went to %d partitions' keys and %d unpartitioned, want 1 and 0", len(parts), whole)
	}
}

// TestCheckReadsAgainAfterLoadingCluster is TestCheckReadsAgainAfterLoading
// on a Cluster without the libraries, the other process's check run after
// the reads of the master that holds the store-wide keys.
func TestCheckReadsAgainAfterLoadingCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t, redistest.Private())
	admin := c.Client(t)
	ctx := t.Context()
	prefix := redistest.Prefix(t)
	other := redisstore.New(admin, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"hot": 3}})
	rdb := redis.NewClusterClient(c.Options())
	t.Cleanup(func() { rdb.Close() })
	var once sync.Once
	rdb.OnNewNode(func(n *redis.Client) {
		n.AddHook(afterPipeline(func(cmds []redis.Cmder) {
			if cmds[0].Name() != "info" || cmds[len(cmds)-1].Name() != "get" {
				return // not the check's reads of the store-wide keys' master
			}
			once.Do(func() {
				if err := other.Check(ctx); err != nil {
					t.Errorf("the other process's check: %v", err)
				}
			})
		}))
	})
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("hot", "a")}); err != nil {
		t.Fatal(err)
	}
	var parts atomic.Int64
	err := admin.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		keys, err := n.Keys(ctx, "{"+prefix+":hot~*}:j").Result()
		parts.Add(int64(len(keys)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := admin.Exists(ctx, "{"+prefix+":hot}:j").Result()
	if err != nil {
		t.Fatal(err)
	}
	if parts.Load() != 1 || whole != 0 {
		t.Errorf("a job enqueued into a queue another process declared with 3 partitions while this one's check loaded the libraries went to %d partitions' keys and %d unpartitioned, want 1 and 0", parts.Load(), whole)
	}
}

// afterPipeline is a go-redis hook that calls fn with each pipeline's
// commands after it ran.
type afterPipeline func(cmds []redis.Cmder)

func (afterPipeline) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (afterPipeline) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (fn afterPipeline) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		fn(cmds)
		return err
	}
}

// tripCounter is a go-redis hook that lists the round trips of a client:
// one a command, one a pipeline (its commands' names).
type tripCounter struct {
	mu    sync.Mutex
	trips []string
}

func (c *tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd.Name())
		return next(ctx, cmd)
	}
}

func (c *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		names := make([]string, len(cmds))
		for i, cmd := range cmds {
			names[i] = cmd.Name()
		}
		c.add(strings.Join(names, " "))
		return next(ctx, cmds)
	}
}

func (c *tripCounter) add(trip string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trips = append(c.trips, trip)
}

// list returns the round trips so far, one line each.
func (c *tripCounter) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.trips)
}
