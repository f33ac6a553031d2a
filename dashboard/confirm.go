package dashboard

import (
	"net/http"

	"github.com/hopperq/hopper"
)

// confirmPage is the data of the page that confirms an action on every job
// in a state.
type confirmPage struct {
	base
	Queue   string
	State   hopper.JobState
	Action  string // retry or delete
	Verb    string // what the button says
	Count   int64  // jobs in the state now
	PostURL string
	Heading string // the question, with the exact count
}

// confirmHeading asks whether to act on every job of state st in queue: "Requeue
// all 2 garbage jobs in default?", "Run now the 1 retry job in default?".
func confirmHeading(verb string, n int64, st hopper.JobState, queue string) string {
	switch n {
	case 0:
		return verb + " every " + string(st) + " job in " + queue + "? None is there now."
	case 1:
		return verb + " the 1 " + string(st) + " job in " + queue + "?"
	}
	return verb + " all " + formatCount(n) + " " + string(st) + " jobs in " + queue + "?"
}

// serveConfirm asks before requeueing or deleting every job in a state. It
// works without JavaScript: the action is a form on this page, and the
// server refuses an "all" action that does not carry its confirm field.
func (d *dash) serveConfirm(w http.ResponseWriter, r *http.Request) {
	queue, ok := d.queueParam(w, r)
	if !ok {
		return
	}
	st, ok := d.stateParam(w, r)
	if !ok {
		return
	}
	if d.cfg.ReadOnly {
		d.renderError(w, r, http.StatusForbidden, "Read-only dashboard", "This dashboard is read-only: actions are turned off on the server.")
		return
	}
	p := confirmPage{Queue: queue, State: st, Action: r.URL.Query().Get("action")}
	switch {
	case p.Action == "retry" && canRequeue(st):
		p.Verb = retryLabel(st)
	case p.Action == "delete" && canDelete(st):
		p.Verb = "Delete"
	default:
		d.renderError(w, r, http.StatusBadRequest, "No such action", "Jobs in "+string(st)+" cannot be acted on that way.")
		return
	}
	stats, err := d.ins.GetQueueStats(r.Context(), queue)
	if err != nil {
		d.storeError(w, r, "reading queue stats", err)
		return
	}
	p.Count = stats.Counts.Get(st)
	p.Heading = confirmHeading(p.Verb, p.Count, st, queue)
	p.PostURL = d.queuePath(queue, st) + "/" + p.Action
	p.base = d.base(r, "Confirm", "queues")
	d.render(w, r, http.StatusOK, "confirm", p)
}
