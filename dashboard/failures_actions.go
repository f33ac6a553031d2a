package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// failureTarget is what a Retries or Dead page action acts on: the jobs
// selected ("id" fields, each "<queue> <id>": a queue name has no
// space), or with all=1 every job the page's search matches, up to
// hopper.MaxAllQueuesDepth.
type failureTarget struct {
	all    bool
	search failureSearch
	byQ    map[string][]string // selected IDs per queue
	n      int                 // jobs selected
}

// readFailureTarget reads the selection of a failures page action.
func readFailureTarget(r *http.Request) (failureTarget, error) {
	t := failureTarget{byQ: map[string][]string{}}
	if r.PostForm.Get("all") == "1" {
		t.all = true
		t.search = parseFailureSearch(r.PostForm)
		return t, nil
	}
	seen := map[string]bool{}
	for _, v := range r.PostForm["id"] {
		queue, id, ok := strings.Cut(v, " ")
		if !ok || store.ValidateQueue(queue) != nil || store.ValidateID(id) != nil {
			return t, &userError{http.StatusBadRequest, "Bad selection", fmt.Sprintf("%q is not a queue and a job ID.", v)}
		}
		if !seen[v] {
			seen[v] = true
			t.byQ[queue] = append(t.byQ[queue], id)
			t.n++
		}
	}
	if t.n > maxSelection {
		return t, &userError{http.StatusRequestEntityTooLarge, "Too many jobs selected",
			fmt.Sprintf("Select at most %d jobs at once, or act on every job that matches.", maxSelection)}
	}
	return t, nil
}

// postFailures runs "retry" (requeue) or "delete" on a failures page.
// Deleting, and acting on every match, ask first (ask.go).
func (d *dash) postFailures(fv failureView, action string) func(r *http.Request) (outcome, error) {
	return func(r *http.Request) (outcome, error) {
		back := d.path(fv.slug)
		if q, err := url.ParseQuery(r.PostForm.Get("back")); err == nil {
			fs := parseFailureSearch(q)
			if q := fs.query(fs.Page); q != "" {
				back += "?" + q
			}
		}
		t, err := readFailureTarget(r)
		if err != nil {
			return outcome{}, err
		}
		if t.all {
			page, err := d.ins.ListJobsAllQueues(r.Context(), d.failureOpts(fv, t.search, 0, hopper.MaxAllQueuesDepth))
			if err != nil {
				return outcome{}, err
			}
			for _, j := range page.Jobs {
				t.byQ[j.Queue] = append(t.byQ[j.Queue], j.ID)
			}
			t.n = len(page.Jobs)
			if t.n == 0 {
				return outcome{to: back, flash: "noselection"}, nil
			}
			if !confirmed(r) {
				return d.askFailures(r, fv, action, t, page.Total, back), nil
			}
		} else if t.n == 0 {
			return outcome{to: back, flash: "noselection"}, nil
		} else if action == "delete" && !confirmed(r) {
			return d.askFailures(r, fv, action, t, t.n, back), nil
		}
		queues := make([]string, 0, len(t.byQ))
		for q := range t.byQ {
			queues = append(queues, q)
		}
		slices.Sort(queues)
		done := 0
		for _, q := range queues {
			var n int
			var err error
			if action == "retry" {
				n, err = d.ins.RequeueJobs(r.Context(), q, fv.state, t.byQ[q])
			} else {
				n, err = d.ins.DeleteJobs(r.Context(), q, fv.state, t.byQ[q])
			}
			if err != nil {
				return outcome{}, err
			}
			done += n
		}
		flash := "requeued"
		if action == "delete" {
			flash = "deleted"
		}
		return outcome{to: back, flash: flash, n: done,
			attrs: []any{"state", string(fv.state), "all", t.all, "queues", len(queues), "selected", t.n}}, nil
	}
}

// askFailures asks before a failures page action: how many jobs in how
// many queues, and, when every match is asked for beyond the first
// hopper.MaxAllQueuesDepth, that the rest stay.
func (d *dash) askFailures(r *http.Request, fv failureView, action string, t failureTarget, total int, back string) outcome {
	which := "selected "
	if t.all {
		which = "matching "
		if !t.search.Filtered() {
			which = ""
		}
	}
	jobs := plural(t.n, which+string(fv.state)+" job", which+string(fv.state)+" jobs")
	where := plural(len(t.byQ), "queue", "queues")
	v := askView{Back: back, Danger: action == "delete"}
	if action == "delete" {
		v.Heading = "Delete " + jobs + " (in " + where + ")?"
		v.Verb = "Delete " + plural(t.n, "job", "jobs")
		v.Detail = "They are removed with their args, attempts and errors. This cannot be undone."
	} else {
		v.Heading = "Run " + jobs + " (in " + where + ") now?"
		v.Verb = "Run " + plural(t.n, "job", "jobs") + " now"
		v.Detail = "They go to ready and run as soon as a worker is free; each keeps its attempts."
	}
	v.Detail += " Jobs that left " + string(fv.state) + " meanwhile are left alone."
	if total > t.n {
		v.Detail += fmt.Sprintf(" The action takes the first %d of the %d: run it again for the rest.", t.n, total)
	}
	return d.ask(r, v)
}
