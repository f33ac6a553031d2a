package dashboard

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// missedGrace is how late a tick may be before the page flags it as missed.
const missedGrace = time.Minute

// scheduleRow is one schedule a running scheduler registered.
type scheduleRow struct {
	hopper.ScheduleRecord
	// Next is the next tick after now when the spec parses
	// (hopper.NextTick), else the one recorded at registration.
	Next time.Time
	// Missed reports that a tick after the last one enqueued fell due over a
	// minute ago and was not enqueued: no process seems to run the
	// schedule.
	Missed bool
	// Orphaned reports that no running scheduler registered the schedule
	// for three of their refresh periods (store.ScheduleRefresh): the
	// processes that ran it are gone.
	Orphaned bool
	// Runs are its last runs, the latest first (store.ScheduleRuns).
	Runs []hopper.ScheduleRun
}

// storedRow is one stored schedule.
type storedRow struct {
	hopper.ScheduleRecord
	// Runs are its last runs, the latest first (store.ScheduleRuns).
	Runs []hopper.ScheduleRun
	// SpecSize is the width of its spec field: the whole spec, within
	// bounds.
	SpecSize int
}

// schedulesPage is the data of the periodic jobs page.
type schedulesPage struct {
	base
	Schedules []scheduleRow
	// Stored are the schedules kept in the store (Inspector.SetSchedule),
	// which the page can pause, resume, respec and delete; StoredOK is
	// false when the store keeps none.
	Stored   []storedRow
	StoredOK bool
	// RunsOK is true when the store keeps schedules' last runs
	// (store.ScheduleRuns); orphaned schedules can then be forgotten.
	RunsOK bool
	// Bad is a stored schedule's spec form sent back with a spec the
	// store refused (form "spec:<queue>/<name>", form_error.go).
	Bad formState
}

// scheduleRowOf computes the missed ticks of s at now; its next tick is
// the one ListSchedules computed (ScheduleRecord.Next: none while a stored
// schedule is paused).
func scheduleRowOf(s hopper.ScheduleRecord, now time.Time) scheduleRow {
	row := scheduleRow{ScheduleRecord: s, Next: s.Next, Orphaned: !s.SeenAt.IsZero() && now.Sub(s.SeenAt) > 3*store.ScheduleRefresh}
	if s.Paused && s.Next.IsZero() {
		return row // paused: no tick is due, so none is missed
	}
	due := s.RegisteredNext // the first tick after registration, when none ran since
	if !s.LastTick.IsZero() {
		next, err := hopper.NextTick(s.Spec, s.LastTick)
		if err != nil {
			// A Spec this version cannot read: only the registered tick
			// can be found missed.
			row.Missed = !due.IsZero() && now.Sub(due) > missedGrace && s.LastTick.Before(due)
			return row
		}
		due = next
	}
	row.Missed = !due.IsZero() && now.Sub(due) > missedGrace
	return row
}

// serveSchedules renders the registered periodic schedules with their last
// and next run.
func (d *dash) serveSchedules(w http.ResponseWriter, r *http.Request) {
	list, err := d.ins.ListSchedules(r.Context())
	if err != nil {
		d.storeError(w, r, "listing schedules", err)
		return
	}
	p := schedulesPage{base: d.base(r, "Periodic jobs", "schedules"), Bad: formStateOf(r)}
	_, p.StoredOK = store.As[store.ScheduleStore](d.ins.Store())
	_, p.RunsOK = store.As[store.ScheduleRuns](d.ins.Store())
	now := d.cfg.Now()
	for _, s := range list {
		var runs []hopper.ScheduleRun
		if p.RunsOK {
			if runs, err = d.ins.ListScheduleRuns(r.Context(), s.Queue, s.Name); err != nil {
				d.storeError(w, r, "listing a schedule's runs", err)
				return
			}
		}
		if !s.SeenAt.IsZero() || !s.Stored { // registered by a scheduler
			row := scheduleRowOf(s, now)
			row.Runs = runs
			p.Schedules = append(p.Schedules, row)
		}
		if s.Stored {
			p.Stored = append(p.Stored, storedRow{ScheduleRecord: s, Runs: runs, SpecSize: min(max(len(s.Spec)+2, 12), 48)})
		}
	}
	d.render(w, r, http.StatusOK, "schedules", p)
}

// postSchedule changes a stored schedule: action "pause", "resume",
// "delete" or "spec" (with the form's "spec").
func (d *dash) postSchedule(r *http.Request) (outcome, error) {
	queue, name, action := r.PathValue("queue"), r.PathValue("name"), r.PathValue("action")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	var err error
	switch action {
	case "pause":
		err = d.ins.PauseSchedule(r.Context(), queue, name)
	case "resume":
		err = d.ins.ResumeSchedule(r.Context(), queue, name)
	case "delete":
		if !confirmed(r) {
			return d.ask(r, askView{Heading: "Delete the stored schedule " + name + " of queue " + queue + "?", Danger: true,
				Detail: "No tick of it is enqueued any more. Jobs it already enqueued stay. This cannot be undone.",
				Verb:   "Delete the schedule", Back: d.path("schedules")}), nil
		}
		err = d.ins.DeleteSchedule(r.Context(), queue, name)
	case "run":
		return d.runSchedule(r, queue, name)
	case "forget":
		return d.forgetSchedule(r, queue, name)
	case "spec":
		spec := strings.TrimSpace(r.PostFormValue("spec"))
		if spec == "" {
			return outcome{}, &userError{http.StatusBadRequest, "Cannot change the schedule", "Give the new schedule, such as @every 5m or 0 3 * * *."}
		}
		err = d.ins.SetScheduleSpec(r.Context(), queue, name, spec)
	default:
		return outcome{}, &userError{http.StatusNotFound, "No such action", "Schedules can be paused, resumed, deleted, run now, forgotten or given a new spec."}
	}
	switch {
	case errors.Is(err, hopper.ErrScheduleNotFound):
		return outcome{}, &userError{http.StatusNotFound, "No such schedule", err.Error()}
	case errors.Is(err, hopper.ErrInvalidConfig) && action == "spec":
		// The page again, the message by the form, what was typed kept.
		return outcome{}, &formError{specForm(queue, name), "spec", err.Error()}
	case errors.Is(err, hopper.ErrInvalidConfig):
		return outcome{}, &userError{http.StatusBadRequest, "Cannot change the schedule", err.Error()}
	case err != nil:
		return outcome{}, err
	}
	return outcome{to: d.path("schedules"), flash: "schedule-" + action, n: 1, attrs: []any{"queue", queue, "schedule", name}}, nil
}

// specFormPrefix starts the name of a stored schedule's spec form.
const specFormPrefix = "spec:"

// specForm names the spec form of stored schedule name of queue, for a
// formError and the page's template.
func specForm(queue, name string) string { return specFormPrefix + queue + "/" + name }
