package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestJobsSameIDInTwoQueues: IDs are unique per queue only. A whole ID
// jobs of two queues have, given without --queue, is ambiguous as a start
// several IDs share is: jobs show, retry, delete, cancel and reschedule
// list both (ID, queue, state, kind), ask for --queue, exit 1 and change
// neither; with --queue they act on that queue's job. They acted on the
// first queue's job and exited 0 ("deleted dup-id (was ready in dupa)"),
// saying nothing of the other.
func TestJobsSameIDInTwoQueues(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		if _, err := c.store.Enqueue(t.Context(), []*store.NewJob{
			{ID: "dup-id", Queue: "dupa", Kind: "send_email", Args: []byte{0x80}},
			{ID: "dup-id", Queue: "dupb", Kind: "resize", Args: []byte{0x80}, RunAt: time.Now().Add(time.Hour)},
		}); err != nil {
			t.Fatal(err)
		}
		ins := hopper.NewInspector(c.store)
		stateOf := func(q string) hopper.JobState {
			j, err := ins.GetJob(t.Context(), q, "dup-id")
			if err != nil {
				t.Fatalf("job dup-id of %s: %v", q, err)
			}
			return j.State
		}
		for _, args := range [][]string{
			{"jobs", "show", "dup-id"},
			{"jobs", "show", "dup-id", "--json"},
			{"jobs", "retry", "dup-id"},
			{"jobs", "delete", "dup-id"},
			{"jobs", "cancel", "dup-id"},
			{"jobs", "reschedule", "--now", "dup-id"},
		} {
			what := strings.Join(args, " ")
			r := c.run(t, args...)
			if r.code != 1 || r.stdout != "" {
				t.Errorf("%s: exit code %d, want 1 and nothing on stdout\nstdout:\n%s\nstderr:\n%s", what, r.code, r.stdout, r.stderr)
			}
			wantOut(t, r.stderr, what, `jobs of 2 queues have the ID "dup-id": give --queue to say which`,
				"dup-id  dupa  ready    send_email", "dup-id  dupb  pending  resize")
			if a, b := stateOf("dupa"), stateOf("dupb"); a != hopper.StateReady || b != hopper.StatePending {
				t.Fatalf("after %s: dupa's job is %s, dupb's %s; want ready and pending (untouched)", what, a, b)
			}
		}

		r := c.run(t, "jobs", "show", "--queue", "dupb", "dup-id")
		wantCode(t, r, 0, "show with --queue")
		wantOut(t, r.stdout, "show with --queue", "Queue:        dupb")
		r = c.run(t, "jobs", "delete", "--queue", "dupb", "dup-id")
		wantCode(t, r, 0, "delete with --queue")
		wantOut(t, r.stdout, "delete with --queue", "deleted dup-id (was pending in dupb)")
		r = c.run(t, "jobs", "cancel", "dup-id")
		wantCode(t, r, 0, "cancel the ID one queue has left")
		wantOut(t, r.stdout, "cancel the ID one queue has left", "cancelled dup-id (was ready)")
		if st := stateOf("dupa"); st != hopper.StateGarbage {
			t.Errorf("dupa's job after cancel: %s, want garbage", st)
		}
	})
}
