package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// newStore returns a store on the shared server with a prefix of its own.
func newStore(t *testing.T, opts *redisstore.Config) (*redisstore.Store, *redis.Client) {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	return storeOn(t, rdb, opts), rdb
}

// newPrefixedStore is newStore that also returns the store's key prefix,
// for tests that read its keys.
func newPrefixedStore(t *testing.T) (*redisstore.Store, *redis.Client, string) {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	return storeOn(t, rdb, &redisstore.Config{Prefix: prefix}), rdb, prefix
}

// storeOn returns a store on rdb; a nil or prefix-less opts gets a fresh
// prefix.
func storeOn(t *testing.T, rdb redis.UniversalClient, opts *redisstore.Config) *redisstore.Store {
	t.Helper()
	o := redisstore.Config{}
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = redistest.Prefix(t)
	}
	return redisstore.New(rdb, &o)
}

// job returns a ready job.
func job(q, id string) *store.NewJob {
	return &store.NewJob{ID: id, Queue: q, Kind: "test", Args: []byte("args of " + id)}
}

// mustEnqueue enqueues jobs and fails the test unless every one was added.
func mustEnqueue(t *testing.T, s store.Store, jobs ...*store.NewJob) {
	t.Helper()
	res, err := s.Enqueue(context.Background(), jobs)
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	for i, r := range res {
		if r.Duplicate || r.ID != jobs[i].ID {
			t.Fatalf("Enqueue of %q: %+v, want it added", jobs[i].ID, r)
		}
	}
}

// logBuffer is a slog handler target that tests read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// commandCount returns how many commands the server has processed.
func commandCount(t testing.TB, rdb *redis.Client) float64 {
	return infoField(t, rdb, "stats", "total_commands_processed")
}

// cmdCalls returns how many times the server ran command (lower case, as in
// INFO commandstats), counting calls from scripts; 0 when never.
func cmdCalls(t testing.TB, rdb *redis.Client, command string) int64 {
	t.Helper()
	return cmdStat(t, rdb, command, "calls")
}

// cmdStat returns field (calls, failed_calls) of command's line of INFO
// commandstats; 0 when the command never ran.
func cmdStat(t testing.TB, rdb *redis.Client, command, field string) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+command+":")
		if !ok {
			continue
		}
		for kv := range strings.SplitSeq(rest, ",") {
			if v, ok := strings.CutPrefix(kv, field+"="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
	}
	return 0
}

// forWorkflowPaths runs f once on each way a store applies workflow steps:
// on one server (records false) and through records, as on a Cluster
// (Config.OneSlotPerScript, records true), each as a subtest.
func forWorkflowPaths(t *testing.T, f func(t *testing.T, records bool)) {
	for _, records := range []bool{false, true} {
		name := "one server"
		if records {
			name = "records (OneSlotPerScript)"
		}
		t.Run(name, func(t *testing.T) { f(t, records) })
	}
}

// fcallOf returns, when cmd is an FCALL of a function whose name ends in
// suffix ("_finish"), or an EVALSHA of a plain script (lua.go: @eval)
// whose name does when prefixed with "plain_" ("_enqueue_lean"), how many
// keys it was given and its arguments (ARGV); ok is false for any other
// command.
func fcallOf(cmd redis.Cmder, suffix string) (keys int, argv []any, ok bool) {
	a := cmd.Args()
	if len(a) < 3 {
		return 0, nil, false
	}
	name := fmt.Sprint(a[1])
	switch cmd.Name() {
	case "fcall":
	case "evalsha":
		name = "plain_" + redisstore.PlainScriptOf(name)
	default:
		return 0, nil, false
	}
	if !strings.HasSuffix(name, suffix) {
		return 0, nil, false
	}
	keys, err := strconv.Atoi(fmt.Sprint(a[2]))
	if err != nil || len(a) < 3+keys {
		return 0, nil, false
	}
	return keys, a[3+keys:], true
}

// isScriptCall reports whether cmd calls a script: FCALL, or EVALSHA or
// EVAL (a plain script, lua.go: @eval).
func isScriptCall(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "fcall", "evalsha", "eval":
		return true
	}
	return false
}

// kept collects what a hook's notes keep, from whichever goroutines send
// commands; take returns it and starts afresh.
type kept[T any] struct {
	mu  sync.Mutex
	got []T
}

func (k *kept[T]) keep(v T) {
	k.mu.Lock()
	k.got = append(k.got, v)
	k.mu.Unlock()
}

// take returns what was kept since the last take.
func (k *kept[T]) take() []T {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := k.got
	k.got = nil
	return out
}

// mustFinish finishes reqs and fails the test unless each ended as asked.
func mustFinish(t *testing.T, s store.Store, reqs ...store.AttemptEnd) {
	t.Helper()
	errs, err := s.Finish(context.Background(), reqs)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	for i, e := range errs {
		if e != nil {
			t.Fatalf("Finish(%s): %v", reqs[i].ID, e)
		}
	}
}

// eachCommand is a go-redis hook that calls itself with every command a
// client sends, each command of a pipeline on its own, before it is sent.
// (Commands that do not pass through hooks, such as a pub/sub
// connection's, are not seen.)
type eachCommand func(cmd redis.Cmder)

var _ redis.Hook = eachCommand(nil)

func (f eachCommand) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f eachCommand) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		f(cmd)
		return next(ctx, cmd)
	}
}

func (f eachCommand) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			f(cmd)
		}
		return next(ctx, cmds)
	}
}

// probeGetsThrough waits until producer enqueues a probe job in queue and
// worker claims it, within failAfter each: the calls after a failover
// fail until the clients follow the new master.
func probeGetsThrough(t *testing.T, producer, worker *redisstore.Store, queue string) {
	t.Helper()
	ctx := t.Context()
	testutil.Eventually(t, failAfter, func() error {
		_, err := producer.Enqueue(ctx, []*store.NewJob{job(queue, "probe")})
		return err
	})
	testutil.Eventually(t, failAfter, func() error {
		res, err := worker.Claim(ctx, store.ClaimOpts{Queue: queue, Max: 10, Lease: time.Minute})
		if err == nil && len(res.Jobs) == 0 {
			err = errors.New("probe not claimed")
		}
		return err
	})
}
