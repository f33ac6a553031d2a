package redisstore_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// stagedWorkflow returns workflow id: eight roots in queue qa, a root in
// queue qb, a join in qb after the eight and a last task in qa after the
// join and the other root: eleven tasks, more than one staging call
// holds at three a call.
func stagedWorkflow(id, qa, qb string) *store.NewWorkflow {
	w := &store.NewWorkflow{ID: id, Name: "staged"}
	var roots []string
	for _, n := range []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"} {
		w.Tasks = append(w.Tasks, wfTask(id, n, qa))
		roots = append(roots, n)
	}
	w.Tasks = append(w.Tasks, wfTask(id, "other", qb), wfTask(id, "join", qb, roots...), wfTask(id, "last", qa, "join", "other"))
	return w
}

// stagedKeys returns the staged keys ("<key>:<attempt>") of workflow id
// under prefix, with their TTLs: on a Cluster, those of every master.
func stagedKeys(t *testing.T, rdb redis.UniversalClient, prefix, id string) map[string]time.Duration {
	t.Helper()
	ctx := context.Background()
	tag := "{" + prefix + ":wf:" + id + "}:"
	var mu sync.Mutex
	out := map[string]time.Duration{}
	scan := func(ctx context.Context, c *redis.Client) error {
		for _, root := range []string{"s", "r", "i", "d", "p", "rel"} {
			iter := c.Scan(ctx, 0, tag+root+":*", 1000).Iterator()
			for iter.Next(ctx) {
				ttl := c.PTTL(ctx, iter.Val()).Val()
				mu.Lock()
				out[iter.Val()] = ttl
				mu.Unlock()
			}
			if err := iter.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, scan)
	case *redis.Client:
		err = scan(ctx, c)
	default:
		t.Fatalf("stagedKeys: a %T", rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// comparable returns rec without what differs between two workflows of
// the same tasks: ID, times and job IDs.
func comparable(rec *store.WorkflowRecord) *store.WorkflowRecord {
	c := *rec
	c.ID, c.CreatedAt = "", time.Time{}
	c.Tasks = append([]store.TaskRecord(nil), rec.Tasks...)
	for i := range c.Tasks {
		c.Tasks[i].JobID = ""
	}
	return &c
}

// runAll claims and acks the ready jobs of qa and qb until workflow id
// ends, and returns the task names in the order they were acked (a
// claim's jobs in the order it took them).
func runAll(t *testing.T, s *redisstore.Store, id, qa, qb string) []string {
	t.Helper()
	ctx := context.Background()
	var ran []string
	for range 20 {
		rec, err := s.GetWorkflow(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.State != store.WorkflowRunning {
			if rec.State != store.WorkflowSucceeded {
				t.Fatalf("workflow %s ended %s", id, rec.State)
			}
			return ran
		}
		// qa's acks come first: what they release in qb runs after.
		for _, j := range append(claimAck(t, s, qa), claimAck(t, s, qb)...) {
			_, task, _ := store.ParseTaskJobID(j)
			ran = append(ran, task)
		}
	}
	t.Fatalf("workflow %s still running after 20 rounds; ran %v", id, ran)
	return nil
}

// TestLargeWorkflowIsStagedAndRunsAsOne: a workflow of more tasks than a
// staging call holds is stored in steps, and is then what the same
// workflow stored in one step is: its record, its first tasks ready, its
// tasks run once each, in dependency order; no staged key is left.
func TestLargeWorkflowIsStagedAndRunsAsOne(t *testing.T) {
	for _, mode := range []struct {
		name    string
		one     bool
		cluster bool
	}{{"one server", false, false}, {"one slot per script", true, false}, {"cluster", false, true}} {
		t.Run(mode.name, func(t *testing.T) {
			if mode.cluster && testing.Short() {
				t.Skip("a Redis Cluster in -short mode")
			}
			t.Parallel()
			ctx := context.Background()
			prefix := redistest.Prefix(t)
			var rdb redis.UniversalClient
			if mode.cluster {
				rdb = redistest.StartCluster(t).Client(t)
			} else {
				rdb = redistest.Start(t).Client(t)
			}
			o := &redisstore.Config{Prefix: prefix, OneSlotPerScript: mode.one}
			staging := storeOn(t, rdb, o)
			redisstore.StageWorkflowTasks(staging, 3)
			plain := storeOn(t, rdb, o)
			if dup, err := staging.EnqueueWorkflow(ctx, stagedWorkflow("big", "qa", "qb")); err != nil || dup {
				t.Fatalf("staged EnqueueWorkflow: dup %v, %v", dup, err)
			}
			if dup, err := plain.EnqueueWorkflow(ctx, stagedWorkflow("small", "pa", "pb")); err != nil || dup {
				t.Fatalf("EnqueueWorkflow: dup %v, %v", dup, err)
			}
			big, err := staging.GetWorkflow(ctx, "big")
			if err != nil {
				t.Fatal(err)
			}
			small, err := plain.GetWorkflow(ctx, "small")
			if err != nil {
				t.Fatal(err)
			}
			for i := range small.Tasks {
				small.Tasks[i].Queue = strings.Replace(strings.Replace(small.Tasks[i].Queue, "pa", "qa", 1), "pb", "qb", 1)
			}
			if got, want := comparable(big), comparable(small); !reflect.DeepEqual(got, want) {
				t.Fatalf("a workflow created in steps differs from one created at once:\n%+v\nwant\n%+v", got, want)
			}
			if left := stagedKeys(t, rdb, prefix, "big"); len(left) > 0 {
				t.Fatalf("staged keys left after the workflow was created: %v", left)
			}
			if got := append(readyIDs(t, staging, "qa"), readyIDs(t, staging, "qb")...); len(got) != 9 {
				t.Fatalf("ready after creation: %v, want the nine roots", got)
			}
			ran := runAll(t, staging, "big", "qa", "qb")
			at := map[string]int{}
			for i, task := range ran {
				if _, twice := at[task]; twice {
					t.Fatalf("task %s ran twice: %v", task, ran)
				}
				at[task] = i
			}
			if len(at) != 11 {
				t.Fatalf("tasks ran %v, want each of the 11 once", ran)
			}
			for _, d := range [][2]string{{"r0", "join"}, {"r7", "join"}, {"join", "last"}, {"other", "last"}} {
				if at[d[0]] > at[d[1]] {
					t.Fatalf("%s ran before its dependency %s: %v", d[1], d[0], ran)
				}
			}
		})
	}
}

func TestLargeWorkflowWhoseProcessDiesBeforeItsLastStep(t *testing.T) {
	ctx := context.Background()
	prefix := redistest.Prefix(t)
	rdb := redistest.Start(t).Client(t)
	o := &redisstore.Config{Prefix: prefix}
	dying := storeOn(t, rdb, o)
	redisstore.StageWorkflowTasks(dying, 3)
	redisstore.CrashWorkflowsAt(dying, "stage")
	if _, err := dying.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err == nil {
		t.Fatal("EnqueueWorkflow that died before its last step returned no error")
	}
	if _, err := dying.GetWorkflow(ctx, "w"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("GetWorkflow of a workflow whose last step never ran: %v, want ErrWorkflowNotFound", err)
	}
	if got := readyIDs(t, dying, "qa"); len(got) != 0 {
		t.Fatalf("ready jobs of a workflow never created: %v", got)
	}
	left := stagedKeys(t, rdb, prefix, "w")
	if len(left) == 0 {
		t.Fatal("no staged keys: the test did not stage")
	}
	for k, ttl := range left {
		if ttl <= 0 || ttl > 5*time.Minute {
			t.Fatalf("staged key %s has TTL %v, want one of at most 5m: it must expire", k, ttl)
		}
	}
	// Enqueued again, by a process that lives, it is created whole.
	again := storeOn(t, rdb, o)
	redisstore.StageWorkflowTasks(again, 3)
	if dup, err := again.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err != nil || dup {
		t.Fatalf("EnqueueWorkflow again: dup %v, %v", dup, err)
	}
	rec, err := again.GetWorkflow(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Tasks) != 11 || rec.Counts[store.TaskEnqueued] != 9 || rec.Counts[store.TaskWaiting] != 2 {
		t.Fatalf("workflow enqueued again: %d tasks, counts %v; want 11, 9 enqueued and 2 waiting", len(rec.Tasks), rec.Counts)
	}
}

func TestLargeWorkflowWhoseStagedTasksExpired(t *testing.T) {
	ctx := context.Background()
	prefix := redistest.Prefix(t)
	rdb := redistest.Start(t).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	redisstore.StageWorkflowTasks(s, 3)
	redisstore.AfterWorkflowStage(s, func() {
		for k := range stagedKeys(t, rdb, prefix, "w") {
			rdb.Del(ctx, k)
		}
	})
	_, err := s.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb"))
	if !errors.Is(err, redisstore.ErrUnavailable) || !strings.Contains(err.Error(), "nothing is stored: enqueue it again") {
		t.Fatalf("EnqueueWorkflow whose staged tasks expired: %v, want ErrUnavailable saying nothing is stored", err)
	}
	if _, err := s.GetWorkflow(ctx, "w"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("GetWorkflow: %v, want ErrWorkflowNotFound", err)
	}
	keys, err := rdb.Keys(ctx, "{"+prefix+":wf:w}*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 0 {
		t.Fatalf("keys of a workflow that was not created: %v", keys)
	}
	if got := append(readyIDs(t, s, "qa"), readyIDs(t, s, "qb")...); len(got) != 0 {
		t.Fatalf("ready jobs of a workflow that was not created: %v", got)
	}
}

func TestLargeWorkflowEnqueuedTwiceAtOnce(t *testing.T) {
	ctx := context.Background()
	prefix := redistest.Prefix(t)
	rdb := redistest.Start(t).Client(t)
	var wg sync.WaitGroup
	dups := make([]bool, 4)
	errs := make([]error, 4)
	for i := range dups {
		s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
		redisstore.StageWorkflowTasks(s, 3)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each call's tasks go to queues of its own, so that the
			// record shows whose tasks it holds.
			q := string(rune('a' + i))
			dups[i], errs[i] = s.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa"+q, "qb"+q))
		}()
	}
	wg.Wait()
	winner := -1
	for i := range dups {
		if errs[i] != nil {
			t.Fatalf("EnqueueWorkflow %d: %v", i, errs[i])
		}
		if !dups[i] {
			if winner >= 0 {
				t.Fatalf("calls %d and %d both created workflow w", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("every call was told workflow w is a duplicate; none created it")
	}
	rec, err := storeOn(t, rdb, &redisstore.Config{Prefix: prefix}).GetWorkflow(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	q := string(rune('a' + winner))
	for _, task := range rec.Tasks {
		if !strings.HasSuffix(task.Queue, q) {
			t.Fatalf("workflow w holds task %s of queue %s, not of the call that created it (queues ending %q): %+v", task.Name, task.Queue, q, rec.Tasks)
		}
	}
	if len(rec.Tasks) != 11 {
		t.Fatalf("workflow w has %d tasks, want 11", len(rec.Tasks))
	}
	// The losers staged nothing that outlives them: a stage of a workflow
	// that exists stores nothing, and the last step of one that lost
	// drops its staged keys.
	for k, ttl := range stagedKeys(t, rdb, prefix, "w") {
		if ttl <= 0 {
			t.Fatalf("staged key %s left without a TTL", k)
		}
	}
}

// TestLargeWorkflowWhoseProcessDiesAfterItsLastStep: the staged tasks
// released are left being released, under the sweeper's mark, like the
// first tasks of any workflow: when the process dies before it enqueues
// them, a sweeper does.
func TestLargeWorkflowWhoseProcessDiesAfterItsLastStep(t *testing.T) {
	ctx, prefix, rdb := leaseServer(t)
	dying := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	// Two a call: the nine roots are all staged, and the last step's
	// tasks (join, last) wait: the mark is the staged ones' alone.
	redisstore.StageWorkflowTasks(dying, 2)
	redisstore.DropLocalReleases(dying, true)
	if dup, err := dying.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err != nil || dup {
		t.Fatalf("EnqueueWorkflow: dup %v, %v", dup, err)
	}
	sweeper := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	sweepUntil(t, sweeper, "the nine first tasks are ready", func() bool {
		return len(readyIDs(t, sweeper, "qa"))+len(readyIDs(t, sweeper, "qb")) == 9
	})
	if left := stagedKeys(t, rdb, prefix, "w"); len(left) > 0 {
		t.Fatalf("staged keys left: %v", left)
	}
}
