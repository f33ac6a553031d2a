package main

import (
	"context"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
)

// TestStoppedWorkerLeavesNoRecord: the program, stopped (Ctrl-C), returns
// once its worker has stopped and removed its record, and closes the
// store after: it closed the store while the worker was still stopping,
// so the record stayed and hopper_workers counted the stopped worker
// until the record lapsed (found by trying the example from outside).
func TestStoppedWorkerLeavesNoRecord(t *testing.T) {
	srv := redistest.Start(t)
	t.Setenv("HOPPER_REDIS_URL", "redis://"+srv.Addr)
	t.Setenv("HOPPER_METRICS_ADDR", "127.0.0.1:0")
	ins := hopper.NewInspector(redisstore.New(srv.Client(t), &redisstore.Config{Prefix: "hopper-prometheus-example"}))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	testutil.EventuallyTrue(t, testutil.Wait, "the worker to be listed", func() bool {
		ws, err := ins.ListWorkers(t.Context())
		return err == nil && len(ws) == 1
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if ws, err := ins.ListWorkers(t.Context()); err != nil || len(ws) != 0 {
		t.Fatalf("workers listed once run returned: %v, %v; want none (the stopped worker removed its record)", ws, err)
	}
}
