package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
)

// canReschedule reports whether the job page offers to change job's due
// time: a waiting job (pending, ready or retry) that no workflow owns.
func canReschedule(job *hopper.JobRecord) bool {
	_, _, isTask := hopper.TaskOf(job)
	return job.State.Replaceable() && !isTask
}

// rescheduleFormat is the browser's datetime-local value, read as UTC.
const rescheduleFormat = "2006-01-02T15:04"

// postJobReschedule gives a waiting job a new due time
// (Inspector.UpdateJob): "at" (a datetime-local value in UTC, with or
// without seconds) or "in" (a Go duration such as 90s or 2h30m; 0s makes
// it due now). The page's Run now button requeues instead.
func (d *dash) postJobReschedule(r *http.Request) (outcome, error) {
	job, err := d.actionJob(r)
	if err != nil {
		return outcome{}, err
	}
	at, err := rescheduleTime(r, d.cfg.Now())
	if err != nil {
		return outcome{}, err
	}
	rec, err := d.ins.UpdateJob(r.Context(), job.Queue, job.ID, hopper.JobUpdate{RunAt: at})
	switch {
	case errors.Is(err, hopper.ErrJobNotFound):
		return outcome{}, &userError{http.StatusNotFound, "No such job", "Queue " + job.Queue + " has no job with this ID any more."}
	case errors.Is(err, hopper.ErrInvalidState):
		return outcome{}, &userError{http.StatusConflict, "Cannot reschedule", err.Error()}
	case err != nil:
		return outcome{}, err
	}
	return outcome{to: d.jobPath(job.Queue, job.ID), flash: "rescheduled", n: 1,
		attrs: []any{"queue", job.Queue, "job", job.ID, "due", rec.RunAt.UTC().Format(time.RFC3339), "state", string(rec.State)}}, nil
}

// rescheduleTime reads the new due time of a reschedule form.
func rescheduleTime(r *http.Request, now time.Time) (time.Time, error) {
	bad := func(msg string) error { return &formError{"reschedule", "at", msg} }
	at, in := strings.TrimSpace(r.PostFormValue("at")), strings.TrimSpace(r.PostFormValue("in"))
	switch {
	case at != "" && in != "":
		return time.Time{}, &formError{"reschedule", "", "Give a time (Run at) or a delay (or in), not both: clear one of them."}
	case at != "":
		v := at
		for _, layout := range []string{rescheduleFormat + ":05", rescheduleFormat, time.RFC3339} {
			if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
				if t.Year() > 9999 || t.Year() < 1970 {
					break
				}
				return t, nil
			}
		}
		return time.Time{}, bad("“" + v + "” is not a time: give it as 2026-11-27T15:04 (UTC).")
	case in != "":
		v := in
		dur, err := time.ParseDuration(v)
		if err != nil || dur < 0 || dur > 100*365*24*time.Hour {
			return time.Time{}, &formError{"reschedule", "in", "“" + v + "” is not a delay: give it as 90s, 15m or 2h30m (at most 100 years)."}
		}
		return now.Add(dur), nil
	}
	return time.Time{}, &formError{"reschedule", "", "Say when: at a time, or in a delay."}
}

// postJobPriority gives a waiting job a new priority (Inspector.UpdateJob):
// "priority", an integer from hopper.MinPriority to hopper.MaxPriority.
func (d *dash) postJobPriority(r *http.Request) (outcome, error) {
	job, err := d.actionJob(r)
	if err != nil {
		return outcome{}, err
	}
	v := strings.TrimSpace(r.PostFormValue("priority"))
	p, err := strconv.Atoi(v)
	if err != nil || p < hopper.MinPriority || p > hopper.MaxPriority {
		return outcome{}, &formError{"priority", "priority",
			fmt.Sprintf("“%s” is not a priority: give a whole number from %d to %d.", v, hopper.MinPriority, hopper.MaxPriority)}
	}
	rec, err := d.ins.UpdateJob(r.Context(), job.Queue, job.ID, hopper.JobUpdate{Priority: &p})
	switch {
	case errors.Is(err, hopper.ErrJobNotFound):
		return outcome{}, &userError{http.StatusNotFound, "No such job", "Queue " + job.Queue + " has no job with this ID any more."}
	case errors.Is(err, hopper.ErrInvalidState):
		return outcome{}, &userError{http.StatusConflict, "Cannot change the priority", err.Error()}
	case errors.Is(err, hopper.ErrInvalidJob):
		return outcome{}, &formError{"priority", "priority", err.Error()}
	case err != nil:
		return outcome{}, err
	}
	return outcome{to: d.jobPath(job.Queue, job.ID), flash: "reprioritised", n: 1,
		attrs: []any{"queue", job.Queue, "job", job.ID, "priority", rec.Priority, "state", string(rec.State)}}, nil
}
