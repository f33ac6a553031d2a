package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/hopperq/hopper/storetest"
	"github.com/redis/go-redis/v9"
)

// TestConformancePlainScripts runs the suite with the scripts called as
// plain scripts (EVALSHA) instead of functions.
func TestConformancePlainScripts(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), NoFunctions: true})
	})
}

// scriptCalls returns how many FCALLs ran a function and how many
// EVALSHA/EVAL calls the server has run since its stats were last reset
// (an FCALL of a function the server lacks, such as the start-up check's
// look for the libraries' manifest, ran none).
func scriptCalls(t *testing.T, c *redis.Client) (fcalls, evals int64) {
	t.Helper()
	return cmdCalls(t, c, "fcall") - cmdStat(t, c, "fcall", "failed_calls"), cmdCalls(t, c, "evalsha") + cmdCalls(t, c, "eval")
}

// libraries returns the names of the hopper function libraries on c.
func libraries(t *testing.T, c *redis.Client) []string {
	t.Helper()
	libs, err := c.FunctionList(t.Context(), redis.FunctionListQuery{LibraryNamePattern: "hopper_*"}).Result()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range libs {
		names = append(names, l.Name)
	}
	return names
}

// roundTrip enqueues a job to queue q of s, claims and acks it, and fails
// the test unless every step worked.
func roundTrip(t *testing.T, s *redisstore.Store, q, id string) {
	t.Helper()
	if _, err := s.Enqueue(t.Context(), []*store.NewJob{job(q, id)}); err != nil {
		t.Fatalf("enqueue %s: %v", id, err)
	}
	ackNext(t, s, q, id)
}

// ackNext claims job id, the next of queue q of s, and acks it, and
// fails the test unless both steps worked.
func ackNext(t *testing.T, s *redisstore.Store, q, id string) {
	t.Helper()
	ctx := t.Context()
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != id {
		t.Fatalf("claim: %+v, %v; want job %s", res, err, id)
	}
	r := res.Jobs[0]
	acks, err := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck}})
	if err != nil || acks[0] != nil {
		t.Fatalf("ack: %v %v", acks, err)
	}
}

// TestScriptsRunAsFunctions: by default the store loads its scripts as
// function libraries and calls them with FCALL, and NoFunctions keeps to
// EVALSHA and loads none.
func TestScriptsRunAsFunctions(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	for _, noFunctions := range []bool{true, false} {
		admin.ConfigResetStat(t.Context())
		s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t), NoFunctions: noFunctions})
		roundTrip(t, s, "q", "a")
		fcalls, evals := scriptCalls(t, admin)
		libs := libraries(t, admin)
		if noFunctions {
			if fcalls != 0 || evals == 0 || len(libs) != 0 {
				t.Fatalf("NoFunctions: %d FCALLs, %d EVALSHAs, libraries %v; want only EVALSHA and no library", fcalls, evals, libs)
			}
			continue
		}
		if fcalls == 0 || evals != 0 || len(libs) == 0 {
			t.Fatalf("default: %d FCALLs, %d EVALSHAs, %d libraries; want only FCALL", fcalls, evals, len(libs))
		}
	}
}

// TestFunctionsLoadedAgain: a server that lost the libraries (FUNCTION
// FLUSH, or a new node) gets them again on the next call, which runs.
func TestFunctionsLoadedAgain(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		srv := redistest.Start(t, redistest.Private())
		admin := srv.Client(t)
		s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t)})
		roundTrip(t, s, "q", "a")
		if err := admin.FunctionFlush(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
		admin.ConfigResetStat(t.Context())
		roundTrip(t, s, "q", "b")
		if fcalls, evals := scriptCalls(t, admin); evals != 0 || len(libraries(t, admin)) == 0 {
			t.Fatalf("after FUNCTION FLUSH: %d FCALLs, %d EVALSHAs; want the libraries loaded again and FCALL only", fcalls, evals)
		}
	})
	t.Run("cluster", func(t *testing.T) {
		if testing.Short() {
			t.Skip("a private cluster in -short mode")
		}
		c := redistest.StartCluster(t, redistest.Private())
		rdb := c.Client(t)
		s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t)})
		queues := []string{"q1", "q2", "q3", "q4", "q5", "q6"}
		for _, q := range queues {
			roundTrip(t, s, q, "a")
		}
		err := rdb.ForEachMaster(t.Context(), func(ctx context.Context, n *redis.Client) error {
			return n.FunctionFlush(ctx).Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queues {
			roundTrip(t, s, q, "b")
		}
		err = rdb.ForEachMaster(t.Context(), func(ctx context.Context, n *redis.Client) error {
			if len(libraries(t, n)) == 0 {
				t.Errorf("master %s has no library after the calls", n.Options().Addr)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestFunctionLoadRefused: without the right to FUNCTION LOAD the store
// warns once and runs every operation as plain scripts.
func TestFunctionLoadRefused(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+function|load"}, nil, srv.Client)
	var logs bytes.Buffer
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	admin.ConfigResetStat(t.Context())
	roundTrip(t, s, "q", "a")
	roundTrip(t, s, "q", "b")
	if n := strings.Count(logs.String(), "refused FUNCTION LOAD"); n != 1 {
		t.Errorf("logged %d refusals, want 1:\n%s", n, logs.String())
	}
	if fcalls, evals := scriptCalls(t, admin); fcalls != 0 || evals == 0 {
		t.Fatalf("%d FCALLs, %d EVALSHAs; want plain scripts only", fcalls, evals)
	}
}

// TestNewVariantLoadsItsLibraryOnly: a script the server does not know (a
// variant built after the start-up check, as a queue's first grouped job
// needs, or a server whose functions were flushed) loads its own library,
// not every library built so far again. Which variants earlier tests of
// this process built does not matter: the functions are flushed first.
func TestNewVariantLoadsItsLibraryOnly(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t)})
	roundTrip(t, s, "q", "a")
	built := len(libraries(t, admin))
	if err := admin.FunctionFlush(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	admin.ConfigResetStat(t.Context())

	j := job("grouped", "g1")
	j.Group = "tenant-1"
	mustEnqueue(t, s, j)
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "grouped", Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim: %+v, %v", res, err)
	}
	r := res.Jobs[0]
	if errs, err := s.Finish(t.Context(), []store.AttemptEnd{{Queue: "grouped", ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck}}); err != nil || errs[0] != nil {
		t.Fatalf("ack: %v %v", errs, err)
	}
	loads := cmdCalls(t, admin, "function|load")
	loaded := len(libraries(t, admin))
	// enqueue, claim and finish of the grouped shape, and what they
	// call on the way (the queue's config, the wake): a handful.
	if loaded == 0 || loaded > 8 || loads > int64(2*loaded) {
		t.Fatalf("a grouped job's round trip on a flushed server sent %d FUNCTION LOADs and left %d libraries (the start-up check had loaded %d); want one load per library the round trip calls", loads, loaded, built)
	}
}

// TestStartupCheckSendsLibrariesOnce: the start-up check of a process on
// a server that holds hopper's libraries from an earlier one sends none
// of them again; one on a server that lost them loads them all, and a
// library deleted by hand comes back on the first call that needs it.
func TestStartupCheckSendsLibrariesOnce(t *testing.T) {
	ctx := t.Context()
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	check := func() *redisstore.Store {
		t.Helper()
		s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t)})
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	check()
	libs := libraries(t, admin)
	admin.ConfigResetStat(ctx)
	check()
	if n := cmdCalls(t, admin, "function|load"); n != 0 {
		t.Errorf("a check on a server holding the %d libraries sent %d FUNCTION LOADs, want none", len(libs), n)
	}

	if err := admin.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	check()
	if got := libraries(t, admin); len(got) != len(libs) {
		t.Errorf("a check after FUNCTION FLUSH left %d libraries, want the %d again", len(got), len(libs))
	}

	var enqueue string
	for _, l := range libs {
		if strings.HasSuffix(l, "_enqueue") {
			enqueue = l
		}
	}
	if err := admin.FunctionDelete(ctx, enqueue).Err(); err != nil {
		t.Fatalf("FUNCTION DELETE %q: %v", enqueue, err)
	}
	roundTrip(t, check(), "q", "a")
	if got := libraries(t, admin); !slices.Contains(got, enqueue) {
		t.Errorf("library %s deleted by hand is not back after an enqueue: %v", enqueue, got)
	}
}

// TestVariantFirstCalledAtMaxmemoryDrains: the start-up check loads only
// a plain queue's libraries, so a worker of a grouped queue may first
// claim on a server at maxmemory, which refuses FUNCTION LOAD. Its claim
// and ack then run as plain scripts, which their allow-oom flag lets run:
// the queue drains, freeing memory, while enqueues are refused.
func TestVariantFirstCalledAtMaxmemoryDrains(t *testing.T) {
	ctx := t.Context()
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t)})
	for _, id := range []string{"g1", "g2"} {
		j := job("grouped", id)
		j.Group = "tenant-1"
		mustEnqueue(t, s, j)
	}
	// Whatever variants earlier tests of this process built, the server
	// holds none of them now.
	if err := admin.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ConfigSet(context.Background(), "maxmemory", "0") })
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("grouped", "refused")}); !errors.Is(err, redisstore.ErrOOM) {
		t.Fatalf("Enqueue at maxmemory: %v, want ErrOOM", err)
	}
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "grouped", Max: 10, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 2 {
		t.Fatalf("Claim at maxmemory: %+v, %v; want both grouped jobs", res, err)
	}
	var ends []store.AttemptEnd
	for _, r := range res.Jobs {
		ends = append(ends, store.AttemptEnd{Queue: "grouped", ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck})
	}
	if errs, err := s.Finish(ctx, ends); err != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("ack at maxmemory: %v, %v", errs, err)
	}
	st, err := s.GetQueueStats(ctx, "grouped")
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts.Ready != 0 || st.Counts.Unack != 0 {
		t.Fatalf("after the acks at maxmemory: %d ready, %d unack; want none", st.Counts.Ready, st.Counts.Unack)
	}
	if libs := libraries(t, admin); len(libs) != 0 {
		t.Errorf("libraries loaded at maxmemory: %v, want none (FUNCTION LOAD is refused)", libs)
	}
}

// TestCheckAtMaxmemoryWithoutLibraries: a process that starts while its
// server is at maxmemory and lacks hopper's libraries (a new version
// deployed while Redis is full, or a server whose functions were
// flushed) still drains its queues: FUNCTION LOAD is refused, so its
// claims and acks run as plain scripts, which may run at maxmemory, and
// memory is freed as jobs end. It does not send each library again at
// every call while the server refuses them: each is a large command the
// server reads whole before refusing it.
func TestCheckAtMaxmemoryWithoutLibraries(t *testing.T) {
	ctx := t.Context()
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	const n = 20
	full := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix})
	for i := range n {
		mustEnqueue(t, full, job("q", fmt.Sprint("full-", i)))
	}
	if err := admin.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ConfigSet(context.Background(), "maxmemory", "0") })
	s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix})
	// Longer than any run of the test: it counts the loads of one pause.
	redisstore.SetFullPause(s, time.Hour)
	for i := range n {
		if i == 1 {
			// After the check, which tried the libraries it preloads
			// once, and the first claim and ack.
			admin.ConfigResetStat(ctx)
		}
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("claim %d of a new process at maxmemory, its server without the libraries: %+v, %v; want a job", i, res, err)
		}
		r := res.Jobs[0]
		if errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "q", ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck}}); err != nil || errs[0] != nil {
			t.Fatalf("ack %d at maxmemory: %v, %v", i, errs, err)
		}
	}
	if loads := cmdStat(t, admin, "function|load", "rejected_calls"); loads != 0 {
		t.Errorf("%d more claims and acks at maxmemory sent %d FUNCTION LOADs the server refused; want none while the store's pause lasts, not one a call", n-1, loads)
	}
}
