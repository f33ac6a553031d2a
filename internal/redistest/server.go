package redistest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one Redis server a test talks to: a redis-server this package
// started, or the one named by HOPPER_TEST_REDIS.
type Server struct {
	// Addr is the server's host:port.
	Addr string
	// Dir is the server's working directory (RDB, AOF and other files);
	// empty for an external server.
	Dir string

	mu     sync.Mutex
	proc   *process // nil for an external server
	shared bool
}

// Start returns a Redis server for t. Without options, in a test binary
// that calls Main, it is the binary's shared server (or HOPPER_TEST_REDIS);
// otherwise, or with options, it starts a redis-server of t's own in
// t.TempDir with --save "" --appendonly no and the options' arguments, and
// stops it in t.Cleanup. When redis-server is missing, t is skipped, or
// failed when CI=true.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := newConfig(opts)
	cfg.requireServerOptions(t, "Start")
	if !cfg.private {
		if s := shared.server(t); s != nil {
			return s
		}
	}
	return startPrivate(t, cfg)
}

// startPrivate starts a redis-server owned by t.
func startPrivate(t testing.TB, cfg config) *Server {
	t.Helper()
	bin := requireBinary(t, "redis-server")
	dir := t.TempDir()
	p, err := startServer(bin, dir, func(port int) []string { return cfg.serverArgs(port, dir) })
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: p.addr(), Dir: dir, proc: p}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// Config returns client options for the server, with short timeouts
// suitable for tests. Callers may change the copy they get.
func (s *Server) Options() *redis.Options {
	return &redis.Options{
		Addr:         s.Addr,
		DialTimeout:  5 * time.Second,
		ReadTimeout:  5 * time.Second,
		WriteTimeout: 5 * time.Second,
	}
}

// Client returns a new client of the server, closed in t.Cleanup. configure,
// when given, adjusts the options first (a user and password, pool size, ...).
func (s *Server) Client(t testing.TB, configure ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := s.Options()
	for _, f := range configure {
		f(o)
	}
	rdb := redis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Stop stops the server (SIGTERM, then wait), for tests of what a store does
// when Redis goes away. Only a private server can be stopped: Stop fails the
// test for a shared or external one. Stopping twice does nothing.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.requirePrivate(t, "Stop")
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
}

// Restart starts a stopped private server again with the same port,
// directory and arguments (so an AOF or RDB file in Dir is loaded), and
// waits until it answers PING. It fails the test if the port was taken in
// the meantime.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.requirePrivate(t, "Restart")
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.proc.done:
	default:
		t.Fatalf("redistest: Restart of %s, which is still running; call Stop first", s.Addr)
	}
	if err := s.proc.start(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) requirePrivate(t testing.TB, what string) {
	t.Helper()
	if s.proc == nil || s.shared {
		t.Fatalf("redistest: %s on the shared or external server %s; use Start(t, Private())", what, s.Addr)
	}
}

func (s *Server) stop() error {
	if s.proc == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc.stop()
}

// ping checks an external server once, so that a wrong HOPPER_TEST_REDIS
// fails with a clear message.
func ping(ctx context.Context, o *redis.Options) error {
	rdb := redis.NewClient(o)
	defer rdb.Close()
	return rdb.Ping(ctx).Err()
}
