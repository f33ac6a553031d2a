package dashboard

import (
	"net/http"
	"slices"

	"github.com/hopperq/hopper"
)

// askView is the confirmation page an unconfirmed destructive action
// answers with: the question with its count, what will happen, and a form
// that posts the same fields again with confirm=1. It works without
// JavaScript; with it, app.js asks in a dialog and adds confirm=1 itself,
// so the page is skipped.
type askView struct {
	base
	Heading string // the question, with the exact count
	Detail  string // what happens, and whether it can be undone
	Verb    string // what the confirming button says
	Danger  bool   // the button is a destructive one
	PostURL string // where the confirmed form goes: the action itself
	Back    string // where "Keep them" goes
	Fields  []askField
}

// askField is one form field the confirming form posts again.
type askField struct{ Name, Value string }

// confirmed reports whether an action's form carries its confirmation
// (confirm=1: the confirmation page's form, or app.js after its dialog).
func confirmed(r *http.Request) bool { return r.PostForm.Get("confirm") == "1" }

// ask returns the outcome that shows the confirmation page for r: every
// field of r's form is posted again, with confirm=1.
func (d *dash) ask(r *http.Request, v askView) outcome {
	keys := make([]string, 0, len(r.PostForm))
	for k := range r.PostForm {
		if k != "confirm" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, val := range r.PostForm[k] {
			v.Fields = append(v.Fields, askField{k, val})
		}
	}
	v.PostURL = d.cfg.Prefix + r.URL.EscapedPath()
	return outcome{ask: &v}
}

// renderAsk answers an unconfirmed action with its confirmation page.
func (d *dash) renderAsk(w http.ResponseWriter, r *http.Request, v *askView) {
	v.base = d.base(r, "Confirm", "queues")
	w.Header().Set("Cache-Control", "no-store")
	d.render(w, r, http.StatusOK, "ask", v)
}

// askJob asks before deleting or cancelling one job (action "delete" or
// "cancel").
func (d *dash) askJob(r *http.Request, action string, job *hopper.JobRecord) outcome {
	v := askView{Back: d.jobPath(job.Queue, job.ID), Danger: true}
	what := "job " + job.ID + " (" + job.Kind + ", " + string(job.State) + ") of queue " + job.Queue
	if action == "cancel" {
		v.Heading = "Cancel " + what + "?"
		v.Verb = "Cancel the job"
		v.Detail = "It goes to garbage, marked cancelled, instead of running."
		if job.State == hopper.StateUnack {
			v.Detail = "It is running: its worker stops it once it hears of it, and it goes to garbage, marked cancelled."
		}
		v.Danger = false
	} else {
		v.Heading = "Delete " + what + "?"
		v.Verb = "Delete the job"
		v.Detail = "It is removed with its args, attempts and errors. This cannot be undone."
	}
	return d.ask(r, v)
}

// askSelection asks before deleting or cancelling the jobs selected on a
// list (action "delete" or "cancel").
func (d *dash) askSelection(r *http.Request, action string, bt bulkTarget) outcome {
	n := len(bt.ids)
	jobs := plural(n, "selected job", "selected jobs")
	v := askView{Back: d.backToList(r, bt.queue, bt.state), Danger: true}
	if action == "cancel" {
		v.Heading = "Cancel the " + jobs + " in " + string(bt.state) + " of queue " + bt.queue + "?"
		v.Verb = "Cancel " + plural(n, "job", "jobs")
		v.Detail = "Waiting ones go to garbage, marked cancelled; running ones stop once their workers hear of it. Jobs that ended meanwhile are left alone."
		v.Danger = false
	} else {
		v.Heading = "Delete the " + jobs + " in " + string(bt.state) + " of queue " + bt.queue + "?"
		v.Verb = "Delete " + plural(n, "job", "jobs")
		v.Detail = "They are removed with their args, attempts and errors. This cannot be undone. Jobs that left " + string(bt.state) + " meanwhile are left alone."
	}
	return d.ask(r, v)
}
