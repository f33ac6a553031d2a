package redistest

import (
	"strings"
	"testing"
)

func TestKillRestartAOF(t *testing.T) {
	s := Start(t, Args("--appendonly", "yes", "--appendfsync", "always"))
	rdb := s.Client(t)
	ctx := t.Context()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.Kill(t)
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING answered after Kill")
	}
	s.Kill(t) // twice is fine
	s.Restart(t)
	if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("after Kill and Restart with appendfsync always: GET k = %q, %v; want v", v, err)
	}
}

func TestSharedCannotBeKilled(t *testing.T) {
	ft := &fakeTB{TB: t}
	ft.run(func() { Start(t).Kill(ft) })
	if !ft.fatal || !strings.Contains(ft.msg, "Private") {
		t.Fatalf("Kill on the shared server: fatal %v, message %q; want a failure pointing to Private", ft.fatal, ft.msg)
	}
}

func TestSharedClusterCannotLoseANode(t *testing.T) {
	ft := &fakeTB{TB: t}
	ft.run(func() { (&Cluster{Addrs: []string{"127.0.0.1:1"}, shared: true}).KillNode(ft, 0) })
	if !ft.fatal || !strings.Contains(ft.msg, "Private") {
		t.Fatalf("KillNode on a shared cluster: fatal %v, message %q; want a failure pointing to Private", ft.fatal, ft.msg)
	}
}
