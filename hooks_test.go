package hopper_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

func TestHooksRunAfterTheStoreConfirmed(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	var mu sync.Mutex
	calls := map[string][]string{} // job ID -> hooks, in order
	record := func(name string) hopper.HookFunc {
		return func(ctx context.Context, job *hopper.JobRecord, err error) {
			mu.Lock()
			defer mu.Unlock()
			calls[job.ID] = append(calls[job.ID], name)
			if (name == "success") != (err == nil) {
				t.Errorf("hook %s of %q: error %v", name, job.ID, err)
			}
			if name == "dead" && job.Attempt == 2 && !errors.Is(err, hopper.ErrCancelled) && err.Error() != "boom" {
				t.Errorf("dead hook of %q: error %v, want the handler's", job.ID, err)
			}
		}
	}
	cfg := testConfig("default")
	cfg.Hooks = hopper.Hooks{OnSuccess: record("success"), OnRetry: record("retry"), OnDead: record("dead")}
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		switch j.Args.Msg {
		case "fail":
			return errors.New("boom")
		case "permanent":
			return hopper.Permanent(errors.New("no"))
		}
		return nil
	})
	ok, _ := hopper.Enqueue(t.Context(), c, Echo{Msg: "ok"}, &hopper.EnqueueOpts{Retention: time.Hour})
	fail, _ := hopper.Enqueue(t.Context(), c, Echo{Msg: "fail"}, &hopper.EnqueueOpts{MaxRetries: 1})
	perm, _ := hopper.Enqueue(t.Context(), c, Echo{Msg: "permanent"}, nil)
	unknown, _ := hopper.Enqueue(t.Context(), c, Other{}, nil)
	stop := startWorker(t, w)
	for _, id := range []string{ok.ID, fail.ID, perm.ID, unknown.ID} {
		if _, err := c.WaitJob(t.Context(), "default", id); err != nil && !errors.Is(err, hopper.ErrJobDead) {
			t.Fatalf("Wait(%q): %v", id, err)
		}
	}
	stop() // Run returns after the hooks of the outcomes it reported
	want := map[string]string{
		ok.ID:      "[success]",
		fail.ID:    "[retry dead]",
		perm.ID:    "[dead]",
		unknown.ID: "[dead]",
	}
	for id, w := range want {
		if got := fmtList(calls[id]); got != w {
			t.Errorf("hooks of job %q: %s, want %s", id, got, w)
		}
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
