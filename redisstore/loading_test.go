package redisstore_test

import (
	"errors"
	"log/slog"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestBadInputLoading: a Redis restarted with a large data set answers
// LOADING until it has read it; hopper reports that as ErrLoading, which is
// Temporary, and the same call succeeds once loading is done.
func TestBadInputLoading(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	srv := redistest.Start(t, redistest.Private(), redistest.Args("--enable-debug-command", "yes"))
	admin := srv.Client(t)
	// A data set that takes a while to load: a million small keys.
	if err := admin.Do(ctx, "DEBUG", "POPULATE", "1000000", "filler", "8").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	srv.Kill(t)

	// The same server again, on its port and directory, yielding to
	// clients every KiB it loads, so they see LOADING rather than a wait.
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal(err)
	}
	_, port, err := net.SplitHostPort(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--dir", srv.Dir, "--save", "",
		"--appendonly", "no", "--loading-process-events-interval-bytes", "1024")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = rdb.Close() })
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: slog.New(slog.DiscardHandler)})
	var loading error
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		_, err := s.Enqueue(ctx, []*store.NewJob{job("q", "after-restart")})
		if err == nil {
			break
		}
		if errors.Is(err, redisstore.ErrLoading) && loading == nil {
			loading = err
		}
		if !redisstore.Temporary(err) {
			t.Fatalf("Enqueue while Redis restarts: %v, want only temporary errors", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("Enqueue still failing after Redis restarted: %v", err)
		}
	}
	if loading == nil {
		t.Fatal("never saw LOADING while Redis loaded a million keys; the test did not test anything")
	}
	t.Logf("while loading: %v", loading)
	if _, err := hopper.NewInspector(s).GetJob(ctx, "q", "after-restart"); err != nil {
		t.Errorf("the job enqueued after loading: %v", err)
	}
}
