package store

import "context"

// Searcher is implemented by stores that can look for jobs of one state
// in the store itself, examining a bounded stretch of the state per call
// from a position the caller keeps (a cursor), so that a search through a
// million jobs is many short calls rather than one long one or a read of
// every job. hopper.Inspector.SearchJobs uses it when the store has it.
// Both of hopper's stores implement it.
type Searcher interface {
	// SearchJobs examines up to req.Examine jobs of req.State from
	// position req.From in the order ListJobs lists, and returns those
	// that may match: their kind holds req.Kind, their stored form holds
	// req.Text (ASCII case aside) and their ID starts with req.IDPrefix.
	// It is a superset: the caller checks its own meaning (an exact kind,
	// text in the decoded args). It stops early once it has req.Limit
	// candidates. Jobs that move meanwhile may be missed or seen twice.
	SearchJobs(ctx context.Context, req SearchRequest) (SearchPage, error)
}

// SearchRequest asks Searcher.SearchJobs for candidates.
type SearchRequest struct {
	Queue  string
	State  JobState
	Newest bool // examine from the latest, as ListRequest.Newest
	// Kind, Text and IDPrefix narrow the candidates; empty ones do not.
	Kind, Text, IDPrefix string
	// From is the position to examine from (0 for the first job).
	From int
	// Examine bounds the jobs examined; Limit the candidates returned.
	Examine, Limit int
}

// SearchPage is what one SearchJobs call found.
type SearchPage struct {
	// Jobs are the candidates, in listing order.
	Jobs []*JobRecord
	// Total is the number of jobs in the state.
	Total int
	// Examined is how many jobs from From the call looked at: the next
	// call starts at From+Examined.
	Examined int
}
