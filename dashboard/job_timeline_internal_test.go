package dashboard

import (
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

func TestJobTimeline(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	job := &hopper.JobRecord{
		State: hopper.StateUnack, Attempt: 3, EnqueuedAt: t0, RunAt: t0, AttemptedAt: t0.Add(50 * time.Second),
		Errors: []store.AttemptError{
			{Attempt: 1, StartedAt: t0.Add(time.Second), At: t0.Add(3 * time.Second), Worker: "w1", Error: "boom\nstack"},
			{Attempt: 2, At: t0.Add(20 * time.Second), Error: "hopper: lease expired"}, // no handler saw it end
		},
	}
	v := jobTimeline(job, t0.Add(100*time.Second), "w2")
	if len(v.Rows) != 3 || v.Incomplete {
		t.Fatalf("rows %+v, incomplete %v; want 3 attempts", v.Rows, v.Incomplete)
	}
	a1, a2, a3 := v.Rows[0], v.Rows[1], v.Rows[2]
	if a1.Outcome != "failed" || a1.Error != "boom" || a1.Duration != 2*time.Second || a1.Worker != "w1" || a1.X != 10 || a1.W != 20 {
		t.Errorf("attempt 1: %+v, want failed boom in 2s on w1 drawn from 10 to 30", a1)
	}
	if a2.Outcome != "failed" || a2.Duration != 0 || a2.W != 0 || !a2.StartedAt.IsZero() {
		t.Errorf("attempt 2: %+v, want failed with no start, no duration and no bar", a2)
	}
	if a3.Outcome != "running" || a3.Worker != "w2" || a3.Duration != 50*time.Second || a3.X != 500 || a3.W != 500 {
		t.Errorf("attempt 3: %+v, want running on w2 for 50s, drawn from 500 to the end", a3)
	}

	// A job that succeeded on its second attempt, after its first is no
	// longer in the history.
	done := &hopper.JobRecord{State: hopper.StateDone, Attempt: 2, EnqueuedAt: t0, RunAt: t0,
		AttemptedAt: t0.Add(10 * time.Second), FinishedAt: t0.Add(12 * time.Second)}
	v = jobTimeline(done, t0.Add(time.Hour), "")
	if len(v.Rows) != 1 || !v.Incomplete || v.Rows[0].Outcome != "succeeded" || v.Rows[0].Duration != 2*time.Second || !v.To.Equal(done.FinishedAt) {
		t.Errorf("done job: %+v, want one succeeded attempt of 2s, the first missing, ending at FinishedAt", v)
	}
	// Never attempted: nothing to draw.
	if v := jobTimeline(&hopper.JobRecord{State: hopper.StatePending, EnqueuedAt: t0, RunAt: t0.Add(time.Hour)}, t0, ""); len(v.Rows) != 0 || v.HasBars {
		t.Errorf("pending job: %+v, want no attempts", v)
	}
}
