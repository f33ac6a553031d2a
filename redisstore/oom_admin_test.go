package redisstore_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestOperatorsAtMaxmemory: a server filled until enqueues get ErrOOM
// (noeviction) still serves what workers and operators need to drain it
// and free memory, from a new process's store (as the hopper command's,
// the dashboard's or a starting worker's): reading the stored schedules
// (a MULTI, which Redis 7.0 refuses at maxmemory even for reads, failed
// it), sending a worker a command and the worker's taking it (a SET and
// a MULTI), removing a worker's record (its shutdown; a MULTI too), cancelling
// and deleting jobs (scripts without allow-oom, refused up front); and
// pausing a queue (the same), from the store that registered it.
func TestOperatorsAtMaxmemory(t *testing.T) {
	ctx := t.Context()
	srv := redistest.Start(t, redistest.Args("--maxmemory-policy", "noeviction"))
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: prefix})
	mustEnqueue(t, s, job("q", "to-delete"), job("q", "to-cancel"))
	sc := store.StoredSchedule{Name: "nightly", Queue: "q", Spec: "@every 1h", Job: store.NewJob{Kind: "test", Args: []byte("a")}}
	if err := s.PutSchedule(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if err := s.Heartbeat(ctx, store.WorkerInfo{ID: "w-1", Host: "box", PID: 7, Queues: map[string]int{"q": 1}, Concurrency: 1,
		StartedAt: time.Now()}, time.Minute); err != nil {
		t.Fatal(err)
	}

	// Fill: maxmemory 4 MB over what the server uses, then jobs of 8 KB
	// until an enqueue is refused, in batches of 50, then one at a time
	// (a batch's request counts for the server while it is read: a
	// smaller one may still fit).
	info, err := admin.InfoMap(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	used, err := strconv.ParseInt(info["Memory"]["used_memory"], 10, 64)
	if err != nil {
		t.Fatalf("INFO memory used_memory: %v", err)
	}
	if err := admin.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used+4<<20, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ConfigSet(t.Context(), "maxmemory", "0") })
	args := make([]byte, 8<<10)
	filled, per := 0, 50
	for {
		var batch []*store.NewJob
		for range per {
			j := job("filler", fmt.Sprint("f-", filled+len(batch)))
			j.Args = args
			batch = append(batch, j)
		}
		_, err := s.Enqueue(ctx, batch)
		if errors.Is(err, redisstore.ErrOOM) {
			if per == 1 {
				break
			}
			per = 1
			continue
		}
		if err != nil {
			t.Fatalf("Enqueue while filling: %v", err)
		}
		if filled += len(batch); filled > 5000 {
			t.Fatalf("%d jobs of 8 KB enqueued and no ErrOOM with maxmemory 4 MB over the start", filled)
		}
	}
	// Refused an 8 KB job, the server may still take a small one, and
	// deleting one job may bring it back under: maxmemory 64 KB lower
	// keeps it over for what follows.
	info, err = admin.InfoMap(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	if used, err = strconv.ParseInt(info["Memory"]["used_memory"], 10, 64); err != nil {
		t.Fatalf("INFO memory used_memory: %v", err)
	}
	if err := admin.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used-64<<10, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	full := func(when string) {
		t.Helper()
		if _, err := s.Enqueue(ctx, []*store.NewJob{job("q", "refused")}); !errors.Is(err, redisstore.ErrOOM) {
			t.Fatalf("Enqueue %s: %v, want ErrOOM (the server still at maxmemory)", when, err)
		}
	}
	full("once filled")

	// A new process's store, as the hopper command's.
	op := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix})
	list, ver, err := op.ListStoredSchedules(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "nightly" || ver < 1 {
		t.Errorf("ListStoredSchedules at maxmemory: %+v, version %d, %v; want the schedule", list, ver, err)
	}
	// A worker's heartbeat goes on (its record would expire, and the
	// dashboard show no worker).
	if err := s.Heartbeat(ctx, store.WorkerInfo{ID: "w-1", Host: "box", PID: 7, Queues: map[string]int{"q": 1}, Concurrency: 1,
		StartedAt: time.Now()}, time.Minute); err != nil {
		t.Errorf("Heartbeat at maxmemory: %v", err)
	}
	// The operator stops the worker, which takes the command (a SET and
	// a MULTI, both refused at maxmemory).
	if err := op.SendWorkerCommand(ctx, "w-1", store.WorkerStop); err != nil {
		t.Errorf("SendWorkerCommand at maxmemory: %v", err)
	}
	if cmd, err := s.TakeWorkerCommand(ctx, "w-1"); err != nil || cmd != store.WorkerStop {
		t.Errorf("TakeWorkerCommand at maxmemory: %q, %v; want stop", cmd, err)
	}
	if cmd, err := s.TakeWorkerCommand(ctx, "w-1"); err != nil || cmd != "" {
		t.Errorf("TakeWorkerCommand again: %q, %v; want none (taken)", cmd, err)
	}
	if err := op.RemoveWorker(ctx, "w-1"); err != nil {
		t.Errorf("RemoveWorker at maxmemory: %v", err)
	} else if ws, err := op.ListWorkers(ctx); err != nil || len(ws) != 0 {
		t.Errorf("ListWorkers after RemoveWorker at maxmemory: %+v, %v; want none", ws, err)
	}
	if st, err := op.CancelJob(ctx, "q", "to-cancel"); err != nil || st != store.StateReady {
		t.Errorf("CancelJob at maxmemory: %q, %v; want ready", st, err)
	}
	if n, err := op.DeleteJobs(ctx, "q", store.StateReady, []string{"to-delete"}); err != nil || n != 1 {
		t.Errorf("DeleteJobs of one job at maxmemory: %d, %v; want 1", n, err)
	}
	// The pause through the new process's store, as "hopper queues
	// pause": its first call on the queue registers it, whose SADD
	// Redis refuses at maxmemory; the queue is registered already.
	if err := hopper.NewInspector(op).PauseQueue(ctx, "q"); err != nil {
		t.Errorf("PauseQueue at maxmemory: %v", err)
	} else if st, err := op.GetQueueStats(ctx, "q"); err != nil || !st.Config.Paused {
		t.Errorf("queue after PauseQueue at maxmemory: %+v, %v; want paused", st.Config, err)
	}
	full("after the cancel, the delete and the pause")
	if n, err := op.DeleteJobs(ctx, "filler", store.StateReady, nil); err != nil || n != filled {
		t.Errorf("DeleteJobs of every ready job at maxmemory: %d, %v; want %d", n, err, filled)
	}
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("q", "after")}); err != nil {
		t.Errorf("Enqueue after the filler was deleted: %v, want room again", err)
	}
}
