package faulttest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// TestMaxmemory is scenario 6: Redis reaches maxmemory with the noeviction
// policy while jobs run and wait. Enqueue fails with ErrOOM; the jobs in
// flight finish and ack, and the workers drain the backlog, all while
// Redis stays at its limit (acks free memory); nothing is lost.
func TestMaxmemory(t *testing.T) {
	const jobs = 60
	srv := redistest.Start(t, redistest.Args("--maxmemory-policy", "noeviction"))
	rdb := srv.Client(t)
	r := newRun(t, rdb)
	ctx := t.Context()
	w := r.startWorker("w0", workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 10, Lease: time.Second, Sleep: 300 * time.Millisecond})
	w.WaitReady()
	if err := r.enqueue(ctx, "default", jobs, jobs, nil); err != nil {
		t.Fatal(err)
	}
	r.procs.Eventually(30*time.Second, func() error {
		if n := running(r.ledgers(), w.Name()); n < 10 {
			return fmt.Errorf("worker runs %d jobs, want 10", n)
		}
		return nil
	})

	// Put Redis over its limit: maxmemory at half of what it uses.
	info, err := rdb.InfoMap(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	used, err := strconv.ParseInt(info["Memory"]["used_memory"], 10, 64)
	if err != nil {
		t.Fatalf("INFO memory used_memory: %v", err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used/2, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	r.addFault("")
	_, err = hopper.Enqueue(ctx, r.client, faultJob{}, nil)
	if !errors.Is(err, redisstore.ErrOOM) {
		t.Fatalf("Enqueue at maxmemory: %v, want an error wrapping redisstore.ErrOOM", err)
	}

	// Every acknowledged job finishes while Redis stays at its limit.
	r.waitQuiet(60 * time.Second)
	if _, err := hopper.Enqueue(ctx, r.client, faultJob{}, nil); !errors.Is(err, redisstore.ErrOOM) {
		t.Fatalf("Enqueue after the drain, still at maxmemory: %v, want ErrOOM", err)
	}
	w.Stop()
	r.check(1)
}

// TestEvictingPolicyWarns is the other half of scenario 6: a worker
// started on a Redis whose maxmemory-policy may evict keys warns about it.
func TestEvictingPolicyWarns(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"))
	r := newRun(t, srv.Client(t))
	w := r.startWorker("w0", workerOpts{Addr: srv.Addr, Prefix: r.prefix})
	w.WaitReady()
	r.procs.Eventually(30*time.Second, func() error {
		if out := w.Stderr(); !strings.Contains(out, "maxmemory-policy") || !strings.Contains(out, "allkeys-lru") {
			return fmt.Errorf("worker stderr has no warning naming the policy: %q", out)
		}
		return nil
	})
	w.Stop()
}
