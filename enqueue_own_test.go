package hopper_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// ownArgs is args of a chosen size: Pad makes them longer than what a
// prepared job holds in itself.
type ownArgs struct {
	N   int    `msgpack:"n"`
	Pad string `msgpack:"pad"`
}

func (ownArgs) Kind() string { return "own" }

// TestEnqueuedJobsKeepTheirIDsAndArgs enqueues jobs from many goroutines,
// short args and long, and checks that each job ran with the args of the
// call that returned its ID, and that the IDs returned stay as they were:
// a job's args share memory with the job Enqueue made (PreparedJob.args),
// which nothing may reuse.
func TestEnqueuedJobsKeepTheirIDsAndArgs(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, nil)
	const n = 400
	infos := make([]*hopper.JobInfo, n)
	ids := make([]string, n)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				a := ownArgs{N: i}
				if i%2 == 1 {
					a.Pad = strings.Repeat("x", 200+i)
				}
				info, err := hopper.Enqueue(ctx, c, a, &hopper.EnqueueOpts{Queue: "own"})
				if err != nil {
					t.Error(err)
					return
				}
				infos[i], ids[i] = info, strings.Clone(info.ID)
			}
		})
	}
	wg.Wait()
	ran := make(map[string]ownArgs, n)
	var mu sync.Mutex
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{"own": 1}})
	hopper.Handle(w, func(_ context.Context, j *hopper.Job[ownArgs]) error {
		mu.Lock()
		ran[j.ID] = j.Args
		mu.Unlock()
		return nil
	})
	if got, err := w.Drain(ctx); err != nil || got != n {
		t.Fatalf("Drain = %d, %v; want %d jobs", got, err, n)
	}
	for i, info := range infos {
		if info.ID != ids[i] || len(info.ID) != 20 {
			t.Fatalf("job %d: JobInfo.ID became %q, was %q", i, info.ID, ids[i])
		}
		a, ok := ran[info.ID]
		if !ok {
			t.Fatalf("job %d (%s) did not run", i, info.ID)
		}
		if a.N != i || (i%2 == 1) != (len(a.Pad) == 200+i) {
			t.Fatalf("job %d (%s) ran with args N=%d and %d bytes of padding", i, info.ID, a.N, len(a.Pad))
		}
	}
}
