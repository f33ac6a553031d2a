package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hopperq/hopper/outbox/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestDB gets two databases: each answers, and they are apart.
func TestDB(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.DB(t), pgtest.DB(t)
	if a == b {
		t.Fatalf("two tests share database %s", a)
	}
	for _, u := range []string{a, b} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("SELECT 1 = %d, %v", one, err)
		}
		conn.Close(ctx)
	}
}

// TestKillRestart kills a cluster's postmaster with SIGKILL and restarts
// it: the URL answers again and an acknowledged commit survived.
func TestKillRestart(t *testing.T) {
	ctx := context.Background()
	c := pgtest.NewCluster(t)
	conn, err := pgx.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Ping(ctx); err == nil {
		t.Fatal("a connection to the killed server still answers")
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM kept").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after the restart: n = %d, %v; want the committed 7", n, err)
	}
}
