package redisstore_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestWrongPasswordIsNotALayout: a store whose client has the wrong
// password gets ErrAuth from its first call, not ErrLayout (the server
// check read the failed round trip's empty replies as an empty layout
// key and an unreadable version); and once the server takes the password,
// the same store works: the failed check was not kept.
func TestWrongPasswordIsNotALayout(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	srv := redistest.Start(t, redistest.Private())
	if err := srv.Client(t).ConfigSet(ctx, "requirepass", "right").Err(); err != nil {
		t.Fatal(err)
	}
	admin := srv.Client(t, func(o *redis.Options) { o.Password = "right" })
	// The server's teardown connects without a password.
	t.Cleanup(func() { _ = admin.ConfigSet(context.Background(), "requirepass", "").Err() })
	rdb := srv.Client(t, func(o *redis.Options) { o.Password = "wrong"; o.MaxRetries = -1 })
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: slog.New(slog.DiscardHandler)})

	_, err := s.Enqueue(ctx, []*store.NewJob{job("q", "a")})
	if !errors.Is(err, redisstore.ErrAuth) || errors.Is(err, redisstore.ErrLayout) {
		t.Fatalf("Enqueue with the wrong password: %v; want ErrAuth, not ErrLayout", err)
	}
	if err := admin.ConfigSet(ctx, "requirepass", "wrong").Err(); err != nil { // what an operator would fix

		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("q", "b")}); err != nil {
		t.Fatalf("Enqueue once the server takes the password: %v", err)
	}
}
