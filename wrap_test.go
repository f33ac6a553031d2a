package hopper_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// tracedStore wraps a store as a tracing or metrics wrapper does: it
// embeds only store.Store, sees Enqueue, and declares Unwrap.
type tracedStore struct {
	store.Store
	enqueued atomic.Int64
}

func (c *tracedStore) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	c.enqueued.Add(int64(len(jobs)))
	return c.Store.Enqueue(ctx, jobs)
}

func (c *tracedStore) Unwrap() store.Store { return c.Store }

type wrapRoot struct{}
type wrapLeaf struct{}
type wrapPlain struct{}

func (wrapRoot) Kind() string  { return "wrap.root" }
func (wrapLeaf) Kind() string  { return "wrap.leaf" }
func (wrapPlain) Kind() string { return "wrap.plain" }

// A store wrapped by a type that embeds only store.Store plus Unwrap runs
// workflows (TaskResult, MoreTasks, EnqueueTasks), Wait and the
// Inspector, and still sees the calls it intercepts.
func TestWrappedStoreKeepsCapabilities(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &tracedStore{Store: memstore.New(nil)}
	client := hopper.NewClient(st, nil)
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Concurrency: 2})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[wrapRoot]) error {
		more := hopper.MoreTasks(ctx)
		hopper.AddTask(more, "leaf", wrapLeaf{}, nil).AfterNamed("root")
		if err := hopper.EnqueueTasks(ctx, client, more); err != nil {
			return err
		}
		return hopper.RecordResult(ctx, "from root")
	})
	leafGot := make(chan string, 1)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[wrapLeaf]) error {
		v, err := hopper.TaskResult[string](ctx, "root")
		if err != nil {
			return err
		}
		leafGot <- v
		return hopper.RecordResult(ctx, v+" via leaf")
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[wrapPlain]) error {
		return hopper.RecordResult(ctx, "plain")
	})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()

	wf := hopper.NewWorkflow("wrapped", nil)
	hopper.AddTask(wf, "root", wrapRoot{}, nil)
	info, err := hopper.EnqueueWorkflow(ctx, client, wf)
	if err != nil {
		t.Fatalf("EnqueueWorkflow on a wrapped store: %v", err)
	}
	rec, err := client.WaitWorkflow(ctx, info.ID)
	if err != nil {
		t.Fatalf("WaitWorkflow on a wrapped store: %v", err)
	}
	if rec.State != hopper.WorkflowSucceeded {
		t.Fatalf("workflow ended %v, want succeeded; tasks: %+v", rec.State, rec.Tasks)
	}
	if got := <-leafGot; got != "from root" {
		t.Fatalf("leaf read TaskResult %q, want %q", got, "from root")
	}

	// Wait for one job (WaitJob, what EnqueueAndWait waits with).
	job, err := hopper.Enqueue(ctx, client, wrapPlain{}, &hopper.EnqueueOpts{Retention: hopper.WaitRetention})
	if err != nil {
		t.Fatal(err)
	}
	jrec, err := client.WaitJob(ctx, job.Queue, job.ID)
	if err != nil {
		t.Fatalf("WaitJob on a wrapped store: %v", err)
	}
	if jrec.ID != job.ID || jrec.State != hopper.StateDone {
		t.Fatalf("WaitJob returned job %q in %v, want %q done", jrec.ID, jrec.State, job.ID)
	}

	// The Inspector: admin actions and stats.
	ins := hopper.NewInspector(st)
	if !ins.Supported() {
		t.Fatal("Inspector.Supported() is false on a wrapped store")
	}
	if err := ins.PauseQueue(ctx, "default"); err != nil {
		t.Fatalf("PauseQueue on a wrapped store: %v", err)
	}
	qs, err := ins.GetQueueStats(ctx, "default")
	if err != nil {
		t.Fatalf("GetQueueStats on a wrapped store: %v", err)
	}
	if !qs.Config.Paused {
		t.Fatal("queue not paused after PauseQueue")
	}
	if _, err := ins.ListWorkers(ctx); err != nil {
		t.Fatalf("ListWorkers on a wrapped store: %v", err)
	}

	if n := st.enqueued.Load(); n < 1 {
		t.Fatalf("the wrapper saw %d enqueued jobs, want the plain job's at least", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}
