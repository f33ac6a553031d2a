package hopper

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// DefaultSearchTime is SearchJobsOpts.MaxTime when zero: a search call
// answers within about this, with what it found so far.
const DefaultSearchTime = 150 * time.Millisecond

// searchChunk is how many jobs one store call examines for SearchJobs.
const searchChunk = 20_000

// SearchJobsOpts asks Inspector.SearchJobs for the jobs of one state of a
// queue that match, from a position on.
type SearchJobsOpts struct {
	// Queue and State to search. Required.
	Queue string
	State JobState
	// Newest searches from the latest job, as ListJobsOpts.Newest.
	Newest bool
	// Kind keeps only jobs of that kind; empty for any.
	Kind string
	// IDPrefix keeps only jobs whose ID starts with it; empty for any.
	IDPrefix string
	// Text, when set, is a hint that lets the store skip jobs cheaply: only
	// jobs whose stored form holds Text (ASCII case aside) are checked
	// with Match. Set it only when every job Match accepts holds it (text
	// of a string in the args does; a number in them may not). The stored
	// form is msgpack, not JSON: a string's bytes are there as they are,
	// with no quotes around them and none escaped. So text with JSON's
	// quotes or escapes is no hint for a Match on the args as JSON: Text
	// `"bob"` keeps the args {"to": "say \"bob\""} and drops {"to": "bob"};
	// leave Text empty for such a search.
	Text string
	// Match is the exact check, run on candidates in the calling goroutine;
	// nil accepts every candidate.
	Match func(*JobRecord) bool
	// From is the position to start from: 0, or the Next of the page
	// before. At least 0.
	From int
	// ByKind says that From is a position in the queue's kind index
	// (QueueConfig.KindIndex) rather than in the state: set it to the
	// ByKind of the page before. A search from 0 with a Kind picks the
	// kind index by itself when the queue keeps one shorter than the state.
	ByKind bool
	// Limit caps the matches returned. Zero means DefaultListLimit (50); at
	// most MaxListLimit (1000): a larger Limit fails with ErrInvalidConfig.
	Limit int
	// MaxTime bounds how long the call examines jobs before returning what
	// it found. Zero means DefaultSearchTime (150 ms).
	MaxTime time.Duration
}

// SearchPage is one call of SearchJobs: matches, and where to go on.
type SearchPage struct {
	// Jobs are the matches, in listing order (with ByKind, in the order
	// they were enqueued).
	Jobs []*JobRecord
	// Total is the number of jobs walked over: in the state, or with
	// ByKind the queue's jobs of the kind, in every state.
	Total int
	// From is where this call started; Next where the next call goes on.
	// Next - From jobs were examined.
	From, Next int
	// ByKind reports that the call walked the queue's kind index (the jobs
	// of Kind, oldest enqueue first) rather than the state: pass it on
	// with Next.
	ByKind bool
}

// Done reports that the search reached the end of the state.
func (p SearchPage) Done() bool { return p.Next >= p.Total }

// SearchJobs looks through one state of a queue for matching jobs, a
// stretch per call: it examines jobs from req.From until it has req.Limit
// matches, the state ends, or req.MaxTime has passed, and says where to
// go on (SearchPage.Next). A search through a million jobs is so a series
// of short calls, each answering within about MaxTime, whatever the
// store's size. On a store that implements store.Searcher (both of
// hopper's) the store narrows the candidates itself, 20,000 jobs a call;
// on others it reads pages of ListJobs. A search by Kind on a queue with
// QueueConfig.KindIndex walks only the jobs of that kind (when they are
// fewer than the state's): a kind of 1,000 jobs among a million answers
// in one call. Jobs that move meanwhile may be missed or seen twice.
func (i *Inspector) SearchJobs(ctx context.Context, req SearchJobsOpts) (SearchPage, error) {
	if err := i.made(); err != nil {
		return SearchPage{}, err
	}
	a, err := i.adminFor("searching jobs")
	if err != nil {
		return SearchPage{}, err
	}
	if err := validQueueState("SearchJobsOpts", req.Queue, req.State); err != nil {
		return SearchPage{}, err
	}
	if req.From < 0 || req.Limit < 0 || req.MaxTime < 0 {
		return SearchPage{}, fmt.Errorf("%w: SearchJobsOpts From %d, Limit %d and MaxTime %v must not be negative",
			ErrInvalidConfig, req.From, req.Limit, req.MaxTime)
	}
	if err := checkPageLimit("SearchJobsOpts", req.Limit, "go on from the page's Next"); err != nil {
		return SearchPage{}, err
	}
	if req.Limit == 0 {
		req.Limit = DefaultListLimit
	}
	if req.MaxTime == 0 {
		req.MaxTime = DefaultSearchTime
	}
	searcher, _ := store.As[store.Searcher](i.st)
	walk := store.SearchWalkState
	switch {
	case req.ByKind && req.Kind == "":
		return SearchPage{}, fmt.Errorf("%w: SearchJobsOpts.ByKind needs a Kind", ErrInvalidConfig)
	case req.ByKind && searcher == nil:
		return SearchPage{}, fmt.Errorf("searching jobs of queue %q by kind: %w", req.Queue, ErrNoKindIndex)
	case req.ByKind:
		walk = store.SearchWalkKind
	case req.Kind != "" && req.From == 0:
		walk = store.SearchWalkShorter
	}
	deadline := time.Now().Add(req.MaxTime)
	page := SearchPage{Jobs: []*JobRecord{}, From: req.From, Next: req.From}
	for {
		var cands []*JobRecord
		var examined int
		if searcher != nil {
			sp, err := searcher.SearchJobs(ctx, store.SearchJobsOpts{
				Queue: req.Queue, State: req.State, Newest: req.Newest,
				Kind: req.Kind, Text: req.Text, IDPrefix: req.IDPrefix, Walk: walk,
				From: page.Next, Examine: searchChunk, Limit: req.Limit - len(page.Jobs),
			})
			if err != nil {
				return SearchPage{}, err
			}
			cands, examined, page.Total = sp.Jobs, sp.Examined, sp.Total
			walk = sp.Walk // what SearchWalkShorter chose, from now on
			page.ByKind = walk == store.SearchWalkKind
		} else {
			p, err := a.ListJobs(ctx, store.ListJobsOpts{Queue: req.Queue, State: req.State, Offset: page.Next, Limit: scanChunk, Newest: req.Newest})
			if err != nil {
				return SearchPage{}, err
			}
			cands, examined, page.Total = p.Jobs, len(p.Jobs), p.Total
			// Without the store's help, the page ends at the last match
			// taken, so that the next call sees the rest.
			for k, r := range cands {
				if len(page.Jobs) == req.Limit {
					examined = k
					break
				}
				if req.matches(r) {
					page.Jobs = append(page.Jobs, r)
				}
			}
			cands = nil
		}
		for _, r := range cands {
			if len(page.Jobs) < req.Limit && req.matches(r) {
				page.Jobs = append(page.Jobs, r)
			}
		}
		page.Next += examined
		if examined == 0 || len(page.Jobs) == req.Limit || page.Next >= page.Total || !time.Now().Before(deadline) {
			if examined == 0 && page.Next < page.Total {
				page.Total = page.Next // the state shrank under the search
			}
			return page, nil
		}
	}
}

// matches applies req's exact checks to a candidate.
func (req SearchJobsOpts) matches(r *JobRecord) bool {
	return (req.Kind == "" || r.Kind == req.Kind) && strings.HasPrefix(r.ID, req.IDPrefix) && (req.Match == nil || req.Match(r))
}
