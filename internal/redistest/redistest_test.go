package redistest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

func TestStartShared(t *testing.T) {
	a, b := Start(t), Start(t)
	if a != b {
		t.Fatalf("two Start calls in a binary with Main gave %s and %s, want the shared server", a.Addr, b.Addr)
	}
	if err := a.Client(t).Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	p := Start(t, Private())
	if p == a || p.Addr == a.Addr {
		t.Fatalf("Start(Private()) returned the shared server")
	}
}

func TestPrivateStopRestart(t *testing.T) {
	s := Start(t, Args("--appendonly", "yes"))
	rdb := s.Client(t)
	ctx := t.Context()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v := rdb.ConfigGet(ctx, "appendonly").Val()["appendonly"]; v != "yes" {
		t.Fatalf("appendonly = %q, want the yes passed with Args", v)
	}
	s.Stop(t)
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING answered after Stop")
	}
	s.Stop(t) // twice is fine
	s.Restart(t)
	if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("after Restart with AOF: GET k = %q, %v; want v (Dir kept)", v, err)
	}
}

func TestSharedCannotBeStopped(t *testing.T) {
	ft := &fakeTB{TB: t}
	ft.run(func() { Start(t).Stop(ft) })
	if !ft.fatal || !strings.Contains(ft.msg, "Private") {
		t.Fatalf("Stop on the shared server: fatal %v, message %q; want a failure pointing to Private", ft.fatal, ft.msg)
	}
}

func TestPrefix(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		p := Prefix(t)
		if seen[p] {
			t.Fatalf("Prefix repeated %q", p)
		}
		seen[p] = true
		if strings.ContainsAny(p, "{}: \t\n") || len(p) > 64 || p == "" {
			t.Fatalf("Prefix %q is not a valid key prefix", p)
		}
	}
}

func TestStartCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := StartCluster(t)
	if len(c.Addrs) != clusterMasters {
		t.Fatalf("cluster of %d nodes, want %d", len(c.Addrs), clusterMasters)
	}
	if c2 := StartCluster(t); c2 != c {
		t.Fatal("two StartCluster calls in a binary with Main gave two clusters")
	}
	rdb := c.Client(t)
	ctx := t.Context()
	owners := map[string]bool{}
	for i := range 30 {
		key := fmt.Sprintf("{k%d}", i)
		if err := rdb.Set(ctx, key, i, 0).Err(); err != nil {
			t.Fatal(err)
		}
		n, err := rdb.MasterForKey(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		owners[n.Options().Addr] = true
	}
	if len(owners) != clusterMasters {
		t.Fatalf("30 keys landed on %d masters, want all %d to own slots", len(owners), clusterMasters)
	}
	if err := c.healthy(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMissingRedis(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		ft := &fakeTB{TB: t}
		ft.run(func() { requireBinary(ft, "redis-server") })
		if ci == "true" && (!ft.fatal || ft.skip) {
			t.Fatalf("CI=true, no redis-server: fatal %v, skip %v; want a failure", ft.fatal, ft.skip)
		}
		if ci == "" && (!ft.skip || ft.fatal) {
			t.Fatalf("no CI, no redis-server: fatal %v, skip %v; want a skip", ft.fatal, ft.skip)
		}
		if !strings.Contains(ft.msg, "redis-server not found") {
			t.Fatalf("message %q does not say what is missing", ft.msg)
		}
	}
}

// fakeTB records Skip and Fatal instead of ending the real test.
type fakeTB struct {
	testing.TB
	mu          sync.Mutex
	fatal, skip bool
	msg         string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) end(fatal bool, args ...any) {
	f.mu.Lock()
	f.fatal, f.skip = fatal, !fatal
	f.msg = fmt.Sprint(args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any)                 { f.end(true, args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.end(true, fmt.Sprintf(format, args...)) }
func (f *fakeTB) Skip(args ...any)                  { f.end(false, args...) }
func (f *fakeTB) Skipf(format string, args ...any)  { f.end(false, fmt.Sprintf(format, args...)) }

// run calls fn in a goroutine (Goexit ends only that one) and waits.
func (f *fakeTB) run(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}
