package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/internal/pgtest"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/redisstore"
)

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(envProgramArgs); ok {
		runAsProgram(args)
	}
	pgtest.Main(m)
}

type Ping struct{ N int }

func (Ping) Kind() string { return "ping" }

// syncBuffer is a bytes.Buffer safe for a command writing while a test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCommands migrates an outbox, writes a job to it, reads the stats,
// relays the job into Redis and reads the stats again, all through the
// commands.
func TestCommands(t *testing.T) {
	ctx := context.Background()
	pgURL := pgtest.DB(t)
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	pg := []string{"--postgres", pgURL, "--table", "app.jobs"}
	rd := []string{"--redis", "redis://" + srv.Addr + "/0", "--redis-prefix", prefix}

	var out, errs syncBuffer
	if code := run(ctx, &out, &errs, append([]string{"migrate"}, pg...)); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, errs.String())
	}
	pool, err := pgxpool.New(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix, Logger: testutil.Logger()})
	ob := outbox.New(hopper.NewClient(st, nil), &outbox.Config{Table: "app.jobs"})
	job, err := outbox.Enqueue(ctx, ob, pgxoutbox.Tx(pool), Ping{N: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out = syncBuffer{}
	if code := run(ctx, &out, &errs, append([]string{"stats", "--json"}, pg...)); code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs.String())
	}
	var s statsLine
	if err := json.Unmarshal([]byte(out.String()), &s); err != nil || s.Depth != 1 || s.Oldest == nil || s.Table != "app.jobs" {
		t.Fatalf("stats --json = %q (%v)", out.String(), err)
	}

	rctx, stop := context.WithCancel(ctx)
	done := make(chan int, 1)
	var relayOut syncBuffer
	go func() {
		done <- run(rctx, &relayOut, &relayOut, append(append([]string{"relay", "--poll", "50ms"}, pg...), rd...))
	}()
	testutil.EventuallyTrue(t, testutil.Wait, "the relay to store the job", func() bool {
		_, err := hopper.NewInspector(st).GetJob(ctx, job.Queue, job.ID)
		return err == nil
	})
	stop()
	if code := testutil.Receive(t, done, testutil.Wait, "relay to stop"); code != 0 {
		t.Fatalf("relay: exit %d: %s", code, relayOut.String())
	}
	out = syncBuffer{}
	if code := run(ctx, &out, &errs, append([]string{"stats"}, pg...)); code != 0 || !strings.Contains(out.String(), "0 waiting") {
		t.Fatalf("stats after the relay: exit %d: %q %s", code, out.String(), errs.String())
	}
}

// TestUsage: no command prints the usage to stdout and exits 2, as the
// hopper command does; schema needs no database. Bad usage and help are
// TestBadUsageExitsTwo and TestHelpExitsZero.
func TestUsage(t *testing.T) {
	ctx := context.Background()
	var out, errs syncBuffer
	if code := run(ctx, &out, &errs, nil); code != 2 || !strings.HasPrefix(out.String(), "usage: hopper outbox <command>") || errs.String() != "" {
		t.Errorf("no command: exit %d, stdout %q, stderr %q; want 2 and the usage on stdout", code, out.String(), errs.String())
	}
	out = syncBuffer{}
	if code := run(ctx, &out, &errs, []string{"schema"}); code != 0 || !strings.Contains(out.String(), `CREATE TABLE IF NOT EXISTS "hopper_outbox"`) {
		t.Errorf("schema: exit %d, %q", code, out.String())
	}
}

// TestOneLine: an error's text over several lines is printed on one, each
// line once.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cannot reach Redis: refused", "cannot reach Redis: refused"},
		{"failed to connect to `user=u database=d`:\n\t127.0.0.1:1 (h): refused\n\t127.0.0.1:1 (h): refused", "failed to connect to `user=u database=d`: 127.0.0.1:1 (h): refused"},
		{"failed to connect to `user=u database=d`:\n\t[::1]:1 (h): refused\n\t127.0.0.1:1 (h): refused", "failed to connect to `user=u database=d`: [::1]:1 (h): refused; 127.0.0.1:1 (h): refused"},
		{"migrate: ERROR: x\nDETAIL: y\n", "migrate: ERROR: x; DETAIL: y"},
	} {
		if got := oneLine(tc.in); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
