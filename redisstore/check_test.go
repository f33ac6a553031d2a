package redisstore_test

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

func TestCheckRefusesOldServer(t *testing.T) {
	f := startFakeRedis(t, "127.0.0.1:0", "6.2.14")
	s := redisstore.New(f.client(t), nil)
	for i := range 3 {
		_, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "a")})
		if !errors.Is(err, redisstore.ErrUnsupportedServer) || !strings.Contains(err.Error(), "6.2") {
			t.Fatalf("Enqueue %d on Redis 6.2: %v, want ErrUnsupportedServer naming the version", i, err)
		}
	}
	if _, err := s.WaitReady(t.Context(), []string{"q"}, time.Millisecond); !errors.Is(err, redisstore.ErrUnsupportedServer) {
		t.Fatalf("WaitReady on Redis 6.2: %v, want ErrUnsupportedServer", err)
	}
	if n := f.infoCalls.Load(); n != 1 {
		t.Fatalf("the server was checked %d times, want once (the refusal is kept)", n)
	}
	if err := s.Check(t.Context()); !errors.Is(err, redisstore.ErrUnsupportedServer) {
		t.Fatalf("Check on Redis 6.2: %v, want ErrUnsupportedServer", err)
	}
}

func TestCheckRetriesUnreachableServer(t *testing.T) {
	// A port nothing listens on (yet).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s := redisstore.New(fakeClient(t, addr), nil)
	if _, err := s.ListQueues(t.Context()); err == nil || errors.Is(err, redisstore.ErrUnsupportedServer) {
		t.Fatalf("Queues with no server: %v, want a connection error", err)
	}
	f := startFakeRedis(t, addr, "7.2.4")
	for i := range 2 {
		if qs, err := s.ListQueues(t.Context()); err != nil || len(qs) != 0 {
			t.Fatalf("Queues %d once the server is up: %v, %v; want none and no error", i, qs, err)
		}
	}
	if n := f.infoCalls.Load(); n != 1 {
		t.Fatalf("the server was checked %d times once up, want once", n)
	}
}

func TestCheckWarnsOnEvictionPolicy(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"))
	var logs logBuffer
	s := storeOn(t, srv.Client(t), &redisstore.Config{Logger: logs.logger()})
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("Check: %v, want only a warning", err)
	}
	if out := logs.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "maxmemory-policy=allkeys-lru") {
		t.Fatalf("log after Check on allkeys-lru: %q, want a warning naming the policy", out)
	}
	// A noeviction server gets no warning.
	var quiet logBuffer
	s = storeOn(t, redistest.Start(t, redistest.Private()).Client(t), &redisstore.Config{Logger: quiet.logger()})
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if out := quiet.String(); out != "" {
		t.Fatalf("log after Check on noeviction: %q, want nothing", out)
	}
}

func TestCheckWithoutPermission(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	err := admin.Do(t.Context(), "ACL", "SETUSER", "app", "on", ">secret", "~*", "&*", "+@all", "-info", "-config").Err()
	if err != nil {
		t.Fatal(err)
	}
	rdb := srv.Client(t, func(o *redis.Options) { o.Username, o.Password = "app", "secret" })
	var logs logBuffer
	s := storeOn(t, rdb, &redisstore.Config{Logger: logs.logger()})
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("Check with INFO and CONFIG denied: %v, want only warnings", err)
	}
	out := logs.String()
	for _, want := range []string{"cannot check the Redis version", "cannot check maxmemory-policy", "NOPERM"} {
		if !strings.Contains(out, want) {
			t.Fatalf("log after a denied check: %q, want %q", out, want)
		}
	}
	// The store works all the same.
	mustEnqueue(t, s, job("q", "a"))
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("Claim as a user without INFO: %d jobs, %v", len(res.Jobs), err)
	}
}

func TestInvalidPrefixIsRefusedAtNew(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	for _, p := range []string{"a:b", "{x}", "a b", strings.Repeat("p", 65)} {
		opts := &redisstore.Config{Prefix: p}
		if err := opts.Validate(); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("Config{Prefix: %q}.Validate() = %v, want ErrInvalidConfig", p, err)
		}
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, store.ErrInvalidConfig) || !strings.Contains(err.Error(), "Prefix") {
					t.Errorf("New with Prefix %q panicked with %v, want an error wrapping ErrInvalidConfig naming Prefix", p, err)
				}
			}()
			redisstore.New(rdb, opts)
		}()
	}
	if err := (&redisstore.Config{}).Validate(); err != nil {
		t.Errorf("zero Config: Validate() = %v, want nil (defaults)", err)
	}
}

// TestRedisErrorsStayMatchable: an error from Redis reaches the caller
// wrapped with the operation but still matchable (here OOM).
func TestRedisErrorsStayMatchable(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--maxmemory", "3mb", "--maxmemory-policy", "noeviction"))
	s := storeOn(t, srv.Client(t), nil)
	big := make([]byte, 64<<10)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		j := job("q", "j"+strconv.Itoa(i))
		j.Args = big
		_, err = s.Enqueue(t.Context(), []*store.NewJob{j})
	}
	if err == nil {
		t.Fatal("64 MB of jobs fit in a 3 MB server")
	}
	var rerr redis.Error
	if !redis.IsOOMError(err) || !errors.As(err, &rerr) || !strings.HasPrefix(err.Error(), "redisstore: ") {
		t.Fatalf("enqueue into a full server: %v, want a redisstore error wrapping Redis's OOM", err)
	}
}
