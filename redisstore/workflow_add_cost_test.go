package redisstore_test

import (
	"strconv"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestAddTasksBeforeOneTaskCostsNoCommandATask: EnqueueTasks of n tasks
// that each must end before one waiting task (Before("sink"), the
// map-reduce shape workflows.md recommends) runs a few commands more than
// the same addition without Before, not two a task: it read and rewrote
// the sink's whole dependency list for every task, which made the
// addition quadratic (an outside trial: 4,000 such tasks held a Cluster
// shard 0.6 s, 2,000 0.2 s). The sink still waits for all of them, listed
// in the order added.
func TestAddTasksBeforeOneTaskCostsNoCommandATask(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: redistest.Prefix(t)})
	const n = 1000
	added := func(wf string, before bool) []*store.NewTask {
		tasks := make([]*store.NewTask, n)
		for i := range tasks {
			tasks[i] = wfTask(wf, "map-"+strconv.Itoa(i), "q")
			if before {
				tasks[i].Blocks = []string{"sink"}
			}
		}
		return tasks
	}
	cost := map[bool]int64{}
	for _, before := range []bool{false, true} {
		wf := "plain"
		if before {
			wf = "before"
		}
		if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: wf, Tasks: []*store.NewTask{
			wfTask(wf, "adder", "q"), wfTask(wf, "sink", "q", "adder"),
		}}); err != nil {
			t.Fatal(err)
		}
		cost[before] = scriptCommands(t, rdb, func() {
			if err := s.AddTasks(ctx, wf, "adder", added(wf, before)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if extra := cost[true] - cost[false]; extra > 10 {
		t.Errorf("adding %d tasks Before one task ran %d commands, %d without Before: %d more, want a few (not one or two a task)",
			n, cost[true], cost[false], extra)
	}
	deps, err := s.TaskDeps(ctx, "before", "sink", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(deps) != n+1 || deps[0].Name != "adder" || deps[1].Name != "map-0" || deps[n].Name != "map-"+strconv.Itoa(n-1) {
		t.Fatalf("the sink's dependencies: %d, want %d: the adder, then the added tasks in order", len(deps), n+1)
	}
	for i, d := range deps[1:] {
		if d.Name != "map-"+strconv.Itoa(i) {
			t.Fatalf("the sink's dependency %d is %q, want map-%d (the order added)", i+1, d.Name, i)
		}
	}
}
