package redisstore

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/store"
)

// redis.ErrClosed is final only when the Store's own client says so: on
// a Redis Cluster go-redis closes the connections of a node that left
// the cluster (a failed-over master), and a call in flight there says
// ErrClosed while the client serves on. A Worker that stopped on that
// would stop on every failover.
func TestClosedIsFinalOnlyForTheStoresClient(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	s := New(rdb, &Config{Prefix: redistest.Prefix(t)})
	ctx := t.Context()
	retired := wrap("claim", redis.ErrClosed) // what a retired node's connection says
	if err := s.closedCheck(ctx, retired); errors.Is(err, ErrClientClosed) || !Temporary(err) {
		t.Fatalf("ErrClosed with the client open: %v (ErrClientClosed %v, Temporary %v), want a temporary ErrUnavailable",
			err, errors.Is(err, ErrClientClosed), Temporary(err))
	}
	if err := rdb.Close(); err != nil {
		t.Fatal(err)
	}
	err := s.closedCheck(ctx, retired)
	var c interface{ StoreClosed() bool }
	if !errors.Is(err, ErrClientClosed) || Temporary(err) || !errors.As(err, &c) || !errors.Is(err, redis.ErrClosed) {
		t.Fatalf("ErrClosed with the client closed: %v (ErrClientClosed %v, Temporary %v), want ErrClientClosed, final, wrapping redis.ErrClosed",
			err, errors.Is(err, ErrClientClosed), Temporary(err))
	}
	if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"}); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("Claim on a closed client: %v, want ErrClientClosed", err)
	}
}
