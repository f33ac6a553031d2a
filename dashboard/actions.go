package dashboard

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// maxSelection bounds the jobs one request may select by ID.
const maxSelection = 1000

// outcome is what an action did, for the audit log and the redirect.
type outcome struct {
	to    string // where to send the browser next
	flash string // the outcome shown there (see flashFrom)
	n     int    // jobs affected
	attrs []any  // audit log attributes
	// ask, when set, is the question an unconfirmed destructive action
	// answers with instead of acting (see ask.go).
	ask *askView
}

// userError is an action refused for a reason the user can fix; it is
// shown with its status instead of logged as a failure.
type userError struct {
	status           int
	heading, message string
}

func (e *userError) Error() string { return e.heading + ": " + e.message }

// action wraps an action's handler: it refuses every action in read-only
// mode, bounds and parses the form, runs fn, writes the audit record and
// redirects (303) to the page fn names with its outcome.
func (d *dash) action(fn func(r *http.Request) (outcome, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if d.cfg.ReadOnly {
			d.renderError(w, r, http.StatusForbidden, "Read-only dashboard", "This dashboard is read-only: actions are turned off on the server.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		if err := r.ParseForm(); err != nil {
			d.renderError(w, r, http.StatusBadRequest, "Bad request", "The form could not be read: "+err.Error())
			return
		}
		out, err := fn(r)
		var ue *userError
		var fe *formError
		switch {
		case errors.As(err, &fe):
			d.reshow(w, r, fe)
			return
		case errors.As(err, &ue):
			d.renderError(w, r, ue.status, ue.heading, ue.message)
			return
		case err != nil:
			d.storeError(w, r, "the action", err)
			return
		}
		if out.ask != nil {
			d.renderAsk(w, r, out.ask)
			return
		}
		user, _, _ := r.BasicAuth()
		attrs := append([]any{"action", r.URL.Path, "affected", out.n, "user", user, "remote", r.RemoteAddr}, out.attrs...)
		d.cfg.Logger.LogAttrs(r.Context(), slog.LevelInfo, "dashboard: action", argsToAttrs(attrs)...)
		to := out.to
		if out.flash != "" {
			to += sepFor(to) + d.flashQuery(out.flash, out.n)
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
	}
}

// argsToAttrs turns alternating keys and values into slog attributes.
func argsToAttrs(kv []any) []slog.Attr {
	out := make([]slog.Attr, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, slog.Any(fmt.Sprint(kv[i]), kv[i+1]))
	}
	return out
}

// sepFor returns the separator that adds a query parameter to u.
func sepFor(u string) string {
	for i := 0; i < len(u); i++ {
		if u[i] == '?' {
			return "&"
		}
	}
	return "?"
}

// bulkTarget is what a bulk action acts on.
type bulkTarget struct {
	queue string
	state hopper.JobState
	all   bool     // every job in the state, confirmed
	ids   []string // the selected jobs when not all; may be empty
}

// readBulkTarget reads the queue, state and selection of a bulk action.
// all=1 selects every job in the state and needs confirm=1 as well:
// without it, confirmURL names the confirmation page to send the browser
// to. Otherwise the selection is the id fields.
func (d *dash) readBulkTarget(r *http.Request, action string) (bt bulkTarget, confirmURL string, err error) {
	bt.queue = r.PathValue("queue")
	if err := d.checkQueue(r.Context(), bt.queue); err != nil {
		return bt, "", &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	bt.state, err = store.ParseState(r.PathValue("state"))
	if err != nil {
		return bt, "", &userError{http.StatusNotFound, "No such state", err.Error()}
	}
	if r.PostForm.Get("all") == "1" {
		if r.PostForm.Get("confirm") != "1" {
			return bt, d.queuePath(bt.queue, bt.state) + "/confirm?action=" + action, nil
		}
		bt.all = true
		return bt, "", nil
	}
	seen := map[string]bool{}
	for _, id := range r.PostForm["id"] {
		if id != "" && !seen[id] {
			seen[id] = true
			bt.ids = append(bt.ids, id)
		}
	}
	if len(bt.ids) > maxSelection {
		return bt, "", &userError{http.StatusRequestEntityTooLarge, "Too many jobs selected",
			fmt.Sprintf("Select at most %d jobs at once, or act on all jobs in the state.", maxSelection)}
	}
	return bt, "", nil
}

// backToList returns the list page of queue and st with the search the
// form came from (its "back" field, re-parsed so only a search gets
// through).
func (d *dash) backToList(r *http.Request, queue string, st hopper.JobState) string {
	q, _ := url.ParseQuery(r.PostForm.Get("back"))
	s := parseSearch(q, st)
	return d.queuePath(queue, st) + "?" + s.query(s.Page)
}

// bulk runs a requeue or delete of the selected jobs, or of all of them.
// op gets nil IDs for all, as the Store's Requeue and Delete take them;
// an empty selection never reaches it.
func (d *dash) bulk(r *http.Request, action, flash string, allowed func(hopper.JobState) bool,
	op func(queue string, st hopper.JobState, ids []string) (int, error)) (outcome, error) {
	bt, confirmURL, err := d.readBulkTarget(r, action)
	switch {
	case err != nil:
		return outcome{}, err
	case confirmURL != "":
		return outcome{to: confirmURL}, nil
	case !allowed(bt.state):
		return outcome{}, &userError{http.StatusBadRequest, "Not allowed in this state", "Jobs in " + string(bt.state) + " cannot be " + flash + "."}
	case !bt.all && len(bt.ids) == 0:
		return outcome{to: d.backToList(r, bt.queue, bt.state), flash: "noselection"}, nil
	}
	if !bt.all && action != "retry" && !confirmed(r) {
		return d.askSelection(r, action, bt), nil
	}
	var ids []string // nil: all
	if !bt.all {
		ids = bt.ids
	}
	n, err := op(bt.queue, bt.state, ids)
	if err != nil {
		return outcome{}, err
	}
	return outcome{to: d.backToList(r, bt.queue, bt.state), flash: flash, n: n,
		attrs: []any{"queue", bt.queue, "state", string(bt.state), "all", bt.all, "selected", len(bt.ids)}}, nil
}

// postBulkRetry requeues the selected jobs of a state, or all of them.
func (d *dash) postBulkRetry(r *http.Request) (outcome, error) {
	return d.bulk(r, "retry", "requeued", canRequeue, func(q string, st hopper.JobState, ids []string) (int, error) {
		return d.ins.RequeueJobs(r.Context(), q, st, ids)
	})
}

// postBulkCancel cancels the selected jobs of a list (Inspector.CancelJob,
// one call per job): waiting ones go to garbage marked cancelled, running
// ones are flagged. It takes a selection only, at most maxSelection jobs;
// jobs gone or ended meanwhile are skipped.
func (d *dash) postBulkCancel(r *http.Request) (outcome, error) {
	if r.PostForm.Get("all") == "1" {
		return outcome{}, &userError{http.StatusBadRequest, "Select the jobs to cancel",
			fmt.Sprintf("Cancel works on selected jobs, at most %d at once.", maxSelection)}
	}
	return d.bulk(r, "cancel", "cancelled", canCancel, func(q string, _ hopper.JobState, ids []string) (int, error) {
		n := 0
		for _, id := range ids {
			prev, err := d.ins.CancelJob(r.Context(), q, id)
			switch {
			case errors.Is(err, hopper.ErrJobNotFound):
			case err != nil:
				return n, err
			case canCancel(prev):
				n++
			}
		}
		return n, nil
	})
}

// postBulkDelete deletes the selected jobs of a state, or all of them.
func (d *dash) postBulkDelete(r *http.Request) (outcome, error) {
	return d.bulk(r, "delete", "deleted", canDelete, func(q string, st hopper.JobState, ids []string) (int, error) {
		return d.ins.DeleteJobs(r.Context(), q, st, ids)
	})
}

// actionJob reads the job an action on one job names.
func (d *dash) actionJob(r *http.Request) (*hopper.JobRecord, error) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		return nil, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	job, err := d.getJob(r.Context(), queue, r.PathValue("id"))
	if errors.Is(err, hopper.ErrJobNotFound) {
		return nil, &userError{http.StatusNotFound, "No such job", "Queue " + queue + " has no job with this ID any more."}
	}
	return job, err
}

// postJobRetry requeues one job now, from whatever state allows it.
func (d *dash) postJobRetry(r *http.Request) (outcome, error) {
	job, err := d.actionJob(r)
	if err != nil {
		return outcome{}, err
	}
	if !canRequeue(job.State) {
		return outcome{}, &userError{http.StatusConflict, "Cannot requeue", "The job is " + string(job.State) + ": only pending, retry, garbage and done jobs can be requeued."}
	}
	n, err := d.ins.RequeueJobs(r.Context(), job.Queue, job.State, []string{job.ID})
	if err != nil {
		return outcome{}, err
	}
	return outcome{to: d.jobPath(job.Queue, job.ID), flash: "requeued", n: n,
		attrs: []any{"queue", job.Queue, "job", job.ID, "from", string(job.State)}}, nil
}

// postJobDelete deletes one job and returns to the list it was in.
func (d *dash) postJobDelete(r *http.Request) (outcome, error) {
	job, err := d.actionJob(r)
	if err != nil {
		return outcome{}, err
	}
	if !canDelete(job.State) {
		return outcome{}, &userError{http.StatusConflict, "Cannot delete", "The job is running: cancel it instead."}
	}
	if !confirmed(r) {
		return d.askJob(r, "delete", job), nil
	}
	n, err := d.ins.DeleteJobs(r.Context(), job.Queue, job.State, []string{job.ID})
	if err != nil {
		return outcome{}, err
	}
	to := d.queuePath(job.Queue, job.State)
	if n == 0 {
		to = d.jobPath(job.Queue, job.ID)
	}
	return outcome{to: to, flash: "deleted", n: n,
		attrs: []any{"queue", job.Queue, "job", job.ID, "from", string(job.State)}}, nil
}

// postJobCancel cancels one waiting or running job.
func (d *dash) postJobCancel(r *http.Request) (outcome, error) {
	job, err := d.actionJob(r)
	if err != nil {
		return outcome{}, err
	}
	if !confirmed(r) {
		return d.askJob(r, "cancel", job), nil
	}
	prev, err := d.ins.CancelJob(r.Context(), job.Queue, job.ID)
	if errors.Is(err, hopper.ErrJobNotFound) {
		return outcome{}, &userError{http.StatusNotFound, "No such job", "The job is gone."}
	}
	if err != nil {
		return outcome{}, err
	}
	return outcome{to: d.jobPath(job.Queue, job.ID), flash: "cancelled", n: 1,
		attrs: []any{"queue", job.Queue, "job", job.ID, "from", string(prev)}}, nil
}

// postPause pauses a queue.
func (d *dash) postPause(r *http.Request) (outcome, error) { return d.setPaused(r, true) }

// postResume resumes a queue.
func (d *dash) postResume(r *http.Request) (outcome, error) { return d.setPaused(r, false) }

// setPaused pauses or resumes a queue (Inspector.PauseQueue, Resume).
func (d *dash) setPaused(r *http.Request, paused bool) (outcome, error) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	if err := d.settingsOnQueue(r.Context(), queue, "pause or resume it"); err != nil {
		return outcome{}, err
	}
	set := d.ins.ResumeQueue
	if paused {
		set = d.ins.PauseQueue
		ask, err := d.askUnknownQueue(r, queue, "Pause "+queue+", a queue no store lists yet?", "Pause "+queue)
		if err != nil || ask != nil {
			return deref(ask), err
		}
	} else if known, err := d.queueKnown(r.Context(), queue); err != nil {
		return outcome{}, err
	} else if !known {
		// Not paused: resuming would only write its settings, setting
		// the queue up. Said as the CLI says it.
		return outcome{}, &userError{http.StatusNotFound, "Nothing to resume", "No queue is named " + queue + ": it has no jobs, settings or workers, so nothing to resume. Check the name."}
	}
	if err := set(r.Context(), queue); err != nil {
		return outcome{}, err
	}
	to := d.home()
	if s, err := store.ParseState(r.PostForm.Get("return")); err == nil {
		to = d.queuePath(queue, s)
	}
	flash := "resumed"
	if paused {
		flash = "paused"
	}
	return outcome{to: to, flash: flash, attrs: []any{"queue", queue, "paused", paused}}, nil
}
