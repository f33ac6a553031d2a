package dashboard

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// The top-bar search (GET /find?id=) takes a whole job ID or, as the
// state search does, the start of one: when no queue holds a job with
// that ID, it looks through every state of every queue for the jobs whose
// IDs start with it. One match opens the job; several are listed.

const (
	// findMax is how many prefix matches the top-bar search lists.
	findMax = 50
	// findTime bounds the prefix search of one request; what it did not
	// reach is said on the page.
	findTime = 2 * time.Second
)

// findPage is the data of the page listing the jobs a prefix matched.
type findPage struct {
	base
	Prefix string
	Jobs   []findMatch
	Exact  bool   // Prefix is a whole ID that several queues hold
	More   bool   // findMax matches found: there may be more
	Cut    string // where the search stopped for time ("" when it went through everything)
}

// findMatch is one job a prefix matched.
type findMatch struct {
	Queue string
	State hopper.JobState
	Job   *hopper.JobRecord
	URL   string
}

// findPrefix looks through every state of queues for jobs whose IDs start
// with prefix, up to findMax of them, for at most findTime. cut names the
// queue and state where time ran out ("" when all were searched).
func (d *dash) findPrefix(ctx context.Context, queues []string, prefix string) (found []findMatch, more bool, cut string, err error) {
	deadline := time.Now().Add(findTime)
	for _, q := range queues {
		for _, st := range store.States {
			from := 0
			for {
				if time.Now().After(deadline) {
					return found, false, q + " · " + string(st), nil
				}
				sp, err := d.ins.SearchJobs(ctx, hopper.SearchJobsOpts{
					Queue: q, State: st, IDPrefix: prefix, From: from, Limit: findMax + 1 - len(found),
				})
				if err != nil {
					return nil, false, "", err
				}
				for _, j := range sp.Jobs {
					found = append(found, findMatch{Queue: q, State: st, Job: j, URL: d.jobPath(q, j.ID)})
				}
				if len(found) > findMax {
					return found[:findMax], true, "", nil
				}
				if sp.Done() || sp.Next <= from {
					break
				}
				from = sp.Next
			}
		}
	}
	return found, false, "", nil
}

// serveFindPrefix answers the top-bar search for an ID no queue holds:
// the one job whose ID starts with it, a list of those that do, or "no
// such job".
func (d *dash) serveFindPrefix(w http.ResponseWriter, r *http.Request, queues []string, id string) {
	if len(id) > maxSearchLen {
		d.renderError(w, r, http.StatusNotFound, "No such job",
			"No queue holds a job with ID "+strconv.Quote(truncate(id, maxSearchLen))+".")
		return
	}
	found, more, cut, err := d.findPrefix(r.Context(), queues, id)
	if err != nil {
		d.storeError(w, r, "searching job IDs", err)
		return
	}
	switch {
	case len(found) == 1 && cut == "":
		http.Redirect(w, r, found[0].URL, http.StatusSeeOther)
		return
	case len(found) == 0 && cut == "":
		d.renderError(w, r, http.StatusNotFound, "No such job",
			"No queue holds a job whose ID is or starts with "+strconv.Quote(truncate(id, maxSearchLen))+". Jobs that succeeded without a retention, or were collected, are gone.")
		return
	}
	d.render(w, r, http.StatusOK, "find", findPage{
		base:   d.base(r, "Jobs starting with "+truncate(id, maxSearchLen), ""),
		Prefix: id, Jobs: found, More: more, Cut: cut,
	})
}
