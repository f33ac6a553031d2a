package dashboard

import (
	"context"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// timelineWidth is the width of the attempt timeline's drawing, in its
// own units (the SVG scales to the page).
const timelineWidth = 1000.0

// attemptRow is one attempt of a job, as the timeline shows it.
type attemptRow struct {
	Attempt int
	// Outcome: "failed", "succeeded", "running", or "ended" (an attempt
	// that ended with the job's state saying no more, such as a cancel).
	Outcome   string
	Error     string // the first line of a failed attempt's error
	StartedAt time.Time
	EndedAt   time.Time // zero while running
	Duration  time.Duration
	Worker    string // "" when unknown
	// X and W place the attempt's bar in the drawing (W 0: no bar, its
	// start is not known).
	X, W float64
}

// timelineView is a job's attempts, oldest first, and the span the
// drawing covers.
type timelineView struct {
	Rows       []attemptRow
	From, To   time.Time // the drawing's left and right ends
	DueX       float64   // where the job fell due (first), in the drawing
	HasBars    bool
	Incomplete bool // the job made more attempts than its history holds
}

// jobTimeline lays out job's attempts: each failed one from its error
// record (start, end and worker when the worker sent them), then the last
// one from the job itself (running since its claim, or succeeded at
// FinishedAt). lastWorker names the worker of the last attempt, running
// or succeeded, when known ("" otherwise; see attemptWorker).
func jobTimeline(job *hopper.JobRecord, now time.Time, lastWorker string) timelineView {
	var v timelineView
	byAttempt := map[int]store.AttemptError{}
	for _, e := range job.Errors {
		byAttempt[e.Attempt] = e
	}
	for a := 1; a <= job.Attempt; a++ {
		e, failed := byAttempt[a]
		row := attemptRow{Attempt: a}
		switch {
		case failed:
			row.Outcome, row.StartedAt, row.EndedAt, row.Worker = "failed", e.StartedAt, e.At, e.Worker
			row.Error, _, _ = strings.Cut(e.Error, "\n")
		case a == job.Attempt && job.State == hopper.StateUnack:
			row.Outcome, row.StartedAt, row.Worker = "running", job.AttemptedAt, lastWorker
		case a == job.Attempt && job.State == hopper.StateDone:
			row.Outcome, row.StartedAt, row.EndedAt, row.Worker = "succeeded", job.AttemptedAt, job.FinishedAt, lastWorker
		case a == job.Attempt && !job.FinishedAt.IsZero():
			row.Outcome, row.StartedAt, row.EndedAt = "ended", job.AttemptedAt, job.FinishedAt
		default:
			v.Incomplete = true // an attempt the history no longer holds
			continue
		}
		end := row.EndedAt
		if row.Outcome == "running" {
			end = now
		}
		if !row.StartedAt.IsZero() && !end.IsZero() && !end.Before(row.StartedAt) {
			row.Duration = end.Sub(row.StartedAt)
		}
		v.Rows = append(v.Rows, row)
	}
	// The drawing spans from the enqueue to the last end (now while the job
	// is not finished).
	v.From, v.To = job.EnqueuedAt, now
	if !job.FinishedAt.IsZero() {
		v.To = job.FinishedAt
	}
	for _, r := range v.Rows {
		if !r.StartedAt.IsZero() && (v.From.IsZero() || r.StartedAt.Before(v.From)) {
			v.From = r.StartedAt
		}
		if r.EndedAt.After(v.To) {
			v.To = r.EndedAt
		}
	}
	span := v.To.Sub(v.From)
	if v.From.IsZero() || span <= 0 {
		return v
	}
	x := func(t time.Time) float64 {
		return max(0, min(timelineWidth, float64(t.Sub(v.From))/float64(span)*timelineWidth))
	}
	v.DueX = x(job.RunAt)
	for i := range v.Rows {
		r := &v.Rows[i]
		if r.StartedAt.IsZero() {
			continue
		}
		end := r.EndedAt
		if r.Outcome == "running" {
			end = now
		}
		r.X = x(r.StartedAt)
		r.W = max(2, x(end)-r.X) // a short attempt still shows
		v.HasBars = true
	}
	return v
}

// runningWorker returns the ID of the live worker that reports running
// job, or "" (the registry is read only for a running job).
func (d *dash) runningWorker(ctx context.Context, job *hopper.JobRecord) string {
	if job.State != hopper.StateUnack {
		return ""
	}
	ws, err := d.ins.ListWorkers(ctx)
	if err != nil {
		return ""
	}
	for _, w := range ws {
		for _, r := range w.Running {
			if r.Queue == job.Queue && r.ID == job.ID {
				return w.ID
			}
		}
	}
	return ""
}
