package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// errorsScan bounds how many jobs of each failing state the errors page
// groups: the newest ones.
const errorsScan = 10_000

// maxErrorGroupIDs bounds the jobs one action on an error group acts on:
// the jobs of the group among the newest errorsScan of its state.
const maxErrorGroupIDs = errorsScan

// errorGroup is the jobs of one queue's failing state whose last error
// reads the same once numbers are left out, and are of one kind.
type errorGroup struct {
	State   hopper.JobState
	Kind    string
	Key     string // the message with digits runs as "#": what groups them
	Example string // the first line of the newest job's last error
	Count   int
	Latest  time.Time // when the newest job of the group failed
	JobID   string    // the newest job of the group
	ids     []string
}

// errorsPage is the data of a queue's errors page.
type errorsPage struct {
	base
	Queue  string
	Groups []errorGroup
	// Scanned and Total count, per failing state, the jobs grouped and the
	// jobs in the state.
	Scanned, Total map[hopper.JobState]int
	CanAct         bool
}

// errorKey is how the errors page groups a last error: its first line,
// with each run of digits as "#" (so "timeout after 3012ms" and "timeout
// after 2999ms" fall together), at most 200 runes.
func errorKey(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	var b strings.Builder
	inDigits := false
	n := 0
	for _, r := range strings.TrimSpace(msg) {
		if unicode.IsDigit(r) {
			if !inDigits {
				b.WriteByte('#')
				n++
			}
			inDigits = true
			continue
		}
		inDigits = false
		if n == 200 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// errorGroups groups the newest errorsScan jobs of queue's retry and
// garbage states by state, kind and errorKey of their last error, the
// biggest group first.
func (d *dash) errorGroups(r *http.Request, queue string) ([]errorGroup, map[hopper.JobState]int, map[hopper.JobState]int, error) {
	scanned := map[hopper.JobState]int{}
	total := map[hopper.JobState]int{}
	by := map[string]int{} // group key -> index in out
	var out []errorGroup
	for _, st := range []hopper.JobState{hopper.StateRetry, hopper.StateGarbage} {
		for off := 0; off < errorsScan; {
			page, err := d.ins.ListJobs(r.Context(), hopper.ListJobsOpts{Queue: queue, State: st, Offset: off, Limit: hopper.MaxListLimit, Newest: true})
			if err != nil {
				return nil, nil, nil, err
			}
			total[st] = page.Total
			for _, j := range page.Jobs {
				msg := "(no error recorded)"
				var at time.Time
				if n := len(j.Errors); n > 0 {
					msg, at = j.Errors[n-1].Error, j.Errors[n-1].At
				}
				msg, _, _ = strings.Cut(msg, "\n")
				key := errorKey(msg)
				k := string(st) + "\x00" + j.Kind + "\x00" + key
				i, seen := by[k]
				if !seen {
					i = len(out)
					by[k] = i
					out = append(out, errorGroup{State: st, Kind: j.Kind, Key: key, Example: msg, Latest: at, JobID: j.ID})
				}
				g := &out[i]
				g.Count++
				g.ids = append(g.ids, j.ID)
			}
			off += len(page.Jobs)
			scanned[st] = off
			if len(page.Jobs) < hopper.MaxListLimit {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b errorGroup) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.State, b.State), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Key, b.Key))
	})
	return out, scanned, total, nil
}

// serveErrors renders a queue's failing jobs grouped by kind and error.
func (d *dash) serveErrors(w http.ResponseWriter, r *http.Request) {
	queue, ok := d.queueParam(w, r)
	if !ok {
		return
	}
	groups, scanned, total, err := d.errorGroups(r, queue)
	if err != nil {
		d.storeError(w, r, "grouping the queue's errors", err)
		return
	}
	p := errorsPage{base: d.base(r, queue+" · errors", "queues"), Queue: queue, Groups: groups, Scanned: scanned, Total: total, CanAct: !d.cfg.ReadOnly}
	d.render(w, r, http.StatusOK, "errors", p)
}

// postErrorGroup requeues or deletes the jobs of one error group (the
// form's state, kind and key), as the page grouped them when the action
// came: a job that joined the group since is included, one that left it
// is not.
func (d *dash) postErrorGroup(r *http.Request) (outcome, error) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	action := r.PostForm.Get("action")
	if action != "retry" && action != "delete" {
		return outcome{}, &userError{http.StatusBadRequest, "No such action", "An error group can be requeued (action=retry) or deleted (action=delete)."}
	}
	st, err := store.ParseState(r.PostForm.Get("state"))
	if err != nil || (st != hopper.StateRetry && st != hopper.StateGarbage) {
		return outcome{}, &userError{http.StatusBadRequest, "No such error group", "The state must be retry or garbage."}
	}
	kind, key := r.PostForm.Get("kind"), r.PostForm.Get("key")
	groups, _, _, err := d.errorGroups(r, queue)
	if err != nil {
		return outcome{}, err
	}
	var ids []string
	var group errorGroup
	for _, g := range groups {
		if g.State == st && g.Kind == kind && g.Key == key {
			ids = g.ids[:min(len(g.ids), maxErrorGroupIDs)]
			group = g
		}
	}
	back := d.path("queues", queue, "errors")
	flash := "requeued"
	if action == "delete" {
		flash = "deleted"
	}
	if len(ids) == 0 { // the group is gone: nothing done
		return outcome{to: back, flash: flash}, nil
	}
	if !confirmed(r) {
		v := askView{Heading: errorConfirm(action, group), Back: back, Verb: "Delete " + plural(len(ids), "job", "jobs"), Danger: true,
			Detail: "The jobs of this group as the errors page counts them now; one that joins the group before you confirm is included."}
		if action == "retry" {
			v.Verb, v.Danger = retryLabel(st)+" "+plural(len(ids), "job", "jobs"), false
		}
		return d.ask(r, v), nil
	}
	var n int
	if action == "retry" {
		n, err = d.ins.RequeueJobs(r.Context(), queue, st, ids)
	} else {
		n, err = d.ins.DeleteJobs(r.Context(), queue, st, ids)
	}
	if err != nil {
		return outcome{}, err
	}
	return outcome{to: back, flash: flash, n: n,
		attrs: []any{"queue", queue, "state", string(st), "kind", kind, "error", key, "group", strconv.Itoa(len(ids))}}, nil
}

// errorConfirm is the question an action on g asks first, with the
// error's text as it is (the template escapes it; Go quoting showed
// back\\slash and \"xss\" in the dialog).
func errorConfirm(action string, g errorGroup) string {
	jobs := "jobs"
	if g.Count == 1 {
		jobs = "job"
	}
	if action == "retry" {
		return fmt.Sprintf("Requeue the %s %s %s %s failing with \"%s\"? They run again now.", formatCount(int64(g.Count)), g.State, g.Kind, jobs, truncate(g.Key, 80))
	}
	return fmt.Sprintf("Delete the %s %s %s %s failing with \"%s\"? This cannot be undone.", formatCount(int64(g.Count)), g.State, g.Kind, jobs, truncate(g.Key, 80))
}
