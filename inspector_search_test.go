package hopper_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
	"github.com/vmihailenco/msgpack/v5"
)

// plainAdmin hides a store's store.Searcher, so SearchJobs takes the path
// for stores without one.
type plainAdmin struct{ adminStore }

type adminStore interface {
	hopper.Store
	store.Admin
}

// SearchJobs finds matches anywhere in a state, a stretch per call, and
// says where to go on.
func TestSearchJobs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		// 50,000 jobs: two kinds, and a needle near the end.
		const n = 50_000
		var jobs []*store.NewJob
		for i := range n {
			kind, to := "echo", fmt.Sprintf("user%d", i)
			if i%10_000 == 9_999 {
				kind = "rare"
			}
			args, err := msgpack.Marshal(map[string]string{"to": to})
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("job-%06d", i), Queue: "search", Kind: kind, Args: args})
			if len(jobs) == 1000 {
				if _, err := s.Enqueue(ctx, jobs); err != nil {
					t.Fatal(err)
				}
				jobs = nil
			}
		}
		for _, st := range []struct {
			name string
			s    hopper.Store
		}{{"native", s}, {"without store.Searcher", plainAdmin{s.(adminStore)}}} {
			t.Run(st.name, func(t *testing.T) {
				ins := hopper.NewInspector(st.s)
				// All of a kind, across calls, in order.
				var rare []string
				for from := 0; ; {
					p, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: "search", State: hopper.StateReady, Kind: "rare", From: from, Limit: 2})
					if err != nil {
						t.Fatal(err)
					}
					if p.Total != n || p.From != from || p.Next <= from {
						t.Fatalf("page from %d: total %d, from %d, next %d", from, p.Total, p.From, p.Next)
					}
					for _, j := range p.Jobs {
						rare = append(rare, j.ID)
					}
					if p.Done() {
						break
					}
					from = p.Next
				}
				if want := []string{"job-009999", "job-019999", "job-029999", "job-039999", "job-049999"}; !slices.Equal(rare, want) {
					t.Errorf("kind rare: found %v, want %v", rare, want)
				}
				// Text near the end, with the store's hint and an exact check.
				var found []string
				for from := 0; ; {
					p, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: "search", State: hopper.StateReady, Text: "USER49990",
						Match: func(r *hopper.JobRecord) bool { return strings.HasSuffix(string(r.Args), "user49990") }, From: from})
					if err != nil {
						t.Fatal(err)
					}
					for _, j := range p.Jobs {
						found = append(found, j.ID)
					}
					if p.Done() {
						break
					}
					from = p.Next
				}
				if !slices.Equal(found, []string{"job-049990"}) {
					t.Errorf("text user49990: found %v", found)
				}
				// An ID prefix, newest first: the first three matches, which
				// may take more than one call (each answers within MaxTime).
				var got []string
				for from := 0; len(got) == 0; {
					p, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: "search", State: hopper.StateReady, IDPrefix: "job-0000", Newest: true, Limit: 3, From: from})
					if err != nil {
						t.Fatal(err)
					}
					got = ids(p.Jobs)
					if p.Done() {
						break
					}
					from = p.Next
				}
				if !slices.Equal(got, []string{"job-000099", "job-000098", "job-000097"}) {
					t.Errorf("ID prefix job-0000, newest first: %v", got)
				}
			})
		}
		// Bad input.
		ins := hopper.NewInspector(s)
		for _, req := range []hopper.SearchJobsOpts{
			{Queue: "bad queue", State: hopper.StateReady},
			{Queue: "search", State: "nope"},
			{Queue: "search", State: hopper.StateReady, From: -1},
		} {
			if _, err := ins.SearchJobs(ctx, req); err == nil {
				t.Errorf("SearchJobs(%+v) accepted bad input", req)
			}
		}
	})
}

func ids(jobs []*hopper.JobRecord) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}
