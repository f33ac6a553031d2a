package redisstore_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestReplicasWaitsForAReplica: with Config.Replicas, an enqueue and an
// ack return once a replica has their writes; the replica holds the job
// the moment Enqueue returns.
func TestReplicasWaitsForAReplica(t *testing.T) {
	ctx := context.Background()
	master, replica := replicated(t)
	s := storeOn(t, master.Client(t), &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: time.Minute})
	mustEnqueue(t, s, job("q", "a"))
	// A replica read (no WAIT of its own): the job is there already.
	if ok, err := replica.Client(t).HExists(ctx, "{dur:q}:j", "a").Result(); err != nil || !ok {
		t.Fatalf("job on the replica right after Enqueue returned: %v, %v; want it there", ok, err)
	}
	ackNext(t, s, "q", "a")
	if ok, err := replica.Client(t).HExists(ctx, "{dur:q}:j", "a").Result(); err != nil || ok {
		t.Fatalf("job on the replica right after its ack returned: %v, %v; want it gone", ok, err)
	}
}

// TestReplicasLoneEnqueuesIntoALeanQueue: with Config.Replicas, the lone
// enqueues of a queue whose lean mark is set, which go to a plain script
// (lua/enqueue_lean.lua) that a fresh server has not seen, each return
// once a replica holds the job, and each job is claimed once.
func TestReplicasLoneEnqueuesIntoALeanQueue(t *testing.T) {
	ctx := context.Background()
	master, replica := replicated(t)
	s := storeOn(t, master.Client(t), &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: time.Minute, NoCoalescing: true})
	ids := []string{"a", "b", "c", "d"}
	for _, id := range ids {
		mustEnqueue(t, s, job("q", id))
		if ok, err := replica.Client(t).HExists(ctx, "{dur:q}:j", id).Result(); err != nil || !ok {
			t.Fatalf("job %s on the replica right after Enqueue returned: %v, %v; want it there", id, ok, err)
		}
	}
	if n, err := master.Client(t).Exists(ctx, "{dur:q}:ln").Result(); err != nil || n != 1 {
		t.Fatalf("lean mark: %d, %v; want it set, for the last enqueues to take the lean way", n, err)
	}
	if got := claimedSorted(t, s, "q", 10); !slices.Equal(got, ids) {
		t.Fatalf("claimed %v, want %v", got, ids)
	}
}

// TestReplicasFailsWithoutReplica: with Config.Replicas and no replica, an
// enqueue fails with ErrNotReplicated (temporary) after ReplicaTimeout,
// and the job is on the master (enqueueing it again is a duplicate).
func TestReplicasFailsWithoutReplica(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	s := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: 50 * time.Millisecond})
	_, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "a")})
	if !errors.Is(err, redisstore.ErrNotReplicated) || !redisstore.Temporary(err) {
		t.Fatalf("Enqueue with Replicas 1 and no replica: %v, want ErrNotReplicated, temporary", err)
	}
	if !store.MayBeStored(err) {
		t.Errorf("store.MayBeStored(%q) is false for a job on the master", err)
	}
	plain := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: "dur"})
	res, err := plain.Enqueue(t.Context(), []*store.NewJob{job("q", "a")})
	if err != nil || !res[0].Duplicate {
		t.Fatalf("the same job enqueued again: %+v, %v; want a duplicate (it is on the master)", res, err)
	}
}

// TestReplicasDuplicateWaitsForTheStoredCopy: with Config.Replicas, an
// enqueue that finds its job stored already (a retry after a lost reply,
// say) reports the duplicate only once a replica has that stored copy,
// though its own call writes nothing: Redis 7.0's WAIT waits for the
// master's whole replication offset when the call was made, whichever
// connection wrote. The replica is frozen while the first copy reaches the
// master alone, so the retry fails with ErrNotReplicated; once the replica
// runs again it reports the duplicate. Only the call made while the
// replica is frozen has a short ReplicaTimeout: the others wait as long as
// a loaded machine needs (a CI run once took over 100 ms to replicate the
// first write).
func TestReplicasDuplicateWaitsForTheStoredCopy(t *testing.T) {
	ctx := context.Background()
	master, replica := replicated(t)
	rdb := master.Client(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: time.Minute})
	mustEnqueue(t, s, job("q", "before")) // the durable stores' connection has written and been waited for

	thaw := replica.Freeze(t)
	plain := storeOn(t, master.Client(t), &redisstore.Config{Prefix: "dur"})
	mustEnqueue(t, plain, job("q", "a")) // on the master only, from another connection
	impatient := storeOn(t, rdb, &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: 100 * time.Millisecond})
	res, err := impatient.Enqueue(ctx, []*store.NewJob{job("q", "a")})
	if !errors.Is(err, redisstore.ErrNotReplicated) {
		t.Fatalf("enqueue of a job stored on the master alone, replica frozen: %+v, %v; want ErrNotReplicated", res, err)
	}
	thaw()
	res, err = s.Enqueue(ctx, []*store.NewJob{job("q", "a")})
	if err != nil || !res[0].Duplicate {
		t.Fatalf("the same enqueue once the replica runs: %+v, %v; want a duplicate", res, err)
	}
	if ok, err := replica.Client(t).HExists(ctx, "{dur:q}:j", "a").Result(); err != nil || !ok {
		t.Fatalf("job on the replica once its duplicate enqueue returned: %v, %v; want it there", ok, err)
	}
}

// follow makes replica a replica of master and waits until its link is up.
func follow(t *testing.T, replica, master *redistest.Server) {
	t.Helper()
	host, port, err := net.SplitHostPort(master.Options().Addr)
	if err != nil {
		t.Fatal(err)
	}
	rdb := replica.Client(t)
	if err := rdb.Do(t.Context(), "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the replica's link to be up", func() bool {
		info, err := rdb.Info(t.Context(), "replication").Result()
		return err == nil && strings.Contains(info, "master_link_status:up")
	})
}

// TestReplicasCoverWorkflows: with Config.Replicas and no replica, a
// workflow's enqueue and an addition of tasks fail with ErrNotReplicated
// (temporary), as an Enqueue does, on one server and on the records path;
// the workflow is on the master (enqueueing it again is a duplicate).
func TestReplicasCoverWorkflows(t *testing.T) {
	forWorkflowPaths(t, func(t *testing.T, records bool) {
		srv := redistest.Start(t, redistest.Private())
		o := &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: 50 * time.Millisecond, OneSlotPerScript: records}
		s := storeOn(t, srv.Client(t), o)
		w := &store.NewWorkflow{ID: "w", Tasks: []*store.NewTask{wfTask("w", "a", "q")}}
		_, err := s.EnqueueWorkflow(t.Context(), w)
		if !errors.Is(err, redisstore.ErrNotReplicated) || !redisstore.Temporary(err) {
			t.Fatalf("EnqueueWorkflow with Replicas 1 and no replica: %v, want ErrNotReplicated, temporary", err)
		}
		err = s.AddTasks(t.Context(), "w", "a", []*store.NewTask{wfTask("w", "b", "q")})
		if !errors.Is(err, redisstore.ErrNotReplicated) || !redisstore.Temporary(err) {
			t.Fatalf("AddTasks with Replicas 1 and no replica: %v, want ErrNotReplicated, temporary", err)
		}
		plain := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: "dur", OneSlotPerScript: records})
		dup, err := plain.EnqueueWorkflow(t.Context(), w)
		if err != nil || !dup {
			t.Fatalf("the same workflow enqueued again: duplicate %v, %v; want a duplicate (it is on the master)", dup, err)
		}
	})
}

// TestReplicasAckAtMaxmemoryWithoutLibraries: with Config.Replicas, a
// process that starts while its server is at maxmemory and lacks
// hopper's libraries still claims and acks (as plain scripts, which the
// server runs at maxmemory), each ack waiting for the replica.
func TestReplicasAckAtMaxmemoryWithoutLibraries(t *testing.T) {
	ctx := t.Context()
	master, replica := replicated(t)
	admin := master.Client(t)
	cfg := &redisstore.Config{Prefix: "dur", Replicas: 1, ReplicaTimeout: time.Minute}
	mustEnqueue(t, storeOn(t, master.Client(t), cfg), job("q", "a"))
	if err := admin.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ConfigSet(context.Background(), "maxmemory", "0") })
	ackNext(t, storeOn(t, master.Client(t), cfg), "q", "a")
	if ok, err := replica.Client(t).HExists(ctx, "{dur:q}:j", "a").Result(); err != nil || ok {
		t.Fatalf("job on the replica after its ack at maxmemory: %v, %v; want it gone", ok, err)
	}
}

// replicated starts a private master and a replica that follows it.
func replicated(t *testing.T) (master, replica *redistest.Server) {
	t.Helper()
	master = redistest.Start(t, redistest.Private())
	replica = redistest.Start(t, redistest.Private())
	follow(t, replica, master)
	return master, replica
}
