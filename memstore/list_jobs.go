package memstore

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/hopperq/hopper/store"
)

// ListJobs returns deep copies of req.Limit jobs of req.Queue in req.State
// from req.Offset, in the order documented by store.ListJobsOpts (ready
// first in first out; pending and retry by due time; unack by lease
// deadline; garbage and done by finish time; ties in the order the jobs
// entered the state), reversed when req.Newest, and the number of jobs in
// the state. A queue never seen gives an empty page. An invalid queue or
// state or a negative Offset or Limit is refused (store.ListJobsOpts.Validate).
func (s *Store) ListJobs(ctx context.Context, req store.ListJobsOpts) (store.JobPage, error) {
	var page store.JobPage
	if err := ctx.Err(); err != nil {
		return page, err
	}
	if err := req.Validate(); err != nil {
		return page, err
	}
	q := s.lookup(req.Queue)
	if q == nil {
		return page, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	page.Total = q.count(req.State)
	off := min(req.Offset, page.Total)
	jobs := q.ordered(req.State, req.Newest, off+req.Limit)
	page.Jobs = copyJobs(jobs[min(off, len(jobs)):])
	return page, nil
}

// copyJobs returns deep copies of the records of jobs.
func copyJobs(jobs []*job) []*store.JobRecord {
	out := make([]*store.JobRecord, len(jobs))
	for i, j := range jobs {
		out[i] = copyRecord(&j.rec)
	}
	return out
}

// ordered returns the first k jobs in st in listing order, or the last k
// latest first when newest. q.mu must be held.
func (q *queue) ordered(st store.JobState, newest bool, k int) []*job {
	if st == store.StateReady {
		return q.ready.list(newest, k)
	}
	asc := before
	if st == store.StateDone { // done's heap is keyed by expiry
		asc = finishedBefore
	}
	less := asc
	if newest {
		less = func(a, b *job) bool { return asc(b, a) }
	}
	return smallest(*q.heapOf(st), k, less)
}

// finishedBefore orders jobs by finish time, then by arrival in their state.
func finishedBefore(a, b *job) bool {
	if c := a.rec.FinishedAt.Compare(b.rec.FinishedAt); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

// smallest returns the k first of items by less, sorted, without changing
// items. It sorts a copy when k is a large part of items, else keeps the k
// best in a bounded max-heap: O(n log k). A k of 0 or less gives none.
func smallest(items []*job, k int, less func(a, b *job) bool) []*job {
	if k <= 0 {
		return nil
	}
	cmp := func(a, b *job) int {
		if less(a, b) {
			return -1
		}
		if less(b, a) {
			return 1
		}
		return 0
	}
	if k*4 >= len(items) {
		c := slices.Clone(items)
		slices.SortFunc(c, cmp)
		return c[:min(k, len(c))]
	}
	// top is a max-heap by less: top[0] is the worst of the best k so far.
	top := make([]*job, 0, k)
	for _, j := range items {
		if len(top) < k {
			top = append(top, j)
			for i := len(top) - 1; i > 0; {
				p := (i - 1) / 2
				if !less(top[p], top[i]) {
					break
				}
				top[p], top[i] = top[i], top[p]
				i = p
			}
			continue
		}
		if !less(j, top[0]) {
			continue
		}
		top[0] = j
		for i := 0; ; {
			c := 2*i + 1
			if c >= k {
				break
			}
			if r := c + 1; r < k && less(top[c], top[r]) {
				c = r
			}
			if !less(top[i], top[c]) {
				break
			}
			top[i], top[c] = top[c], top[i]
			i = c
		}
	}
	slices.SortFunc(top, cmp)
	return top
}

// SearchJobs looks for candidates in one state of a queue (see
// store.Searcher): it examines req.Examine jobs from req.From in listing
// order and keeps those whose kind holds req.Kind, whose kind, args bytes
// or metadata hold req.Text (ASCII case aside) and whose ID starts with
// req.IDPrefix, at most req.Limit of them. O(From + Examine) under the
// queue's lock. With req.Walk SearchWalkKind (or SearchWalkShorter and a
// kind index shorter than the state) it walks the queue's kind index
// instead (kind_index.go), which memstore builds at once when
// QueueConfig.KindIndex is set. What store.SearchJobsOpts.Validate
// refuses (an invalid queue, state or walk, negative counts) is refused.
func (s *Store) SearchJobs(ctx context.Context, req store.SearchJobsOpts) (store.SearchPage, error) {
	var page store.SearchPage
	if err := ctx.Err(); err != nil {
		return page, err
	}
	if err := req.Validate(); err != nil {
		return page, err
	}
	q := s.lookup(req.Queue)
	if q == nil {
		return page, nil
	}
	text := []byte(strings.ToLower(req.Text))
	keep := func(j *job) bool {
		return strings.HasPrefix(j.rec.ID, req.IDPrefix) && strings.Contains(j.rec.Kind, req.Kind) && (len(text) == 0 || holdsText(&j.rec, text))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	page.Total = q.count(req.State)
	switch req.Walk {
	case store.SearchWalkKind:
		return q.searchKind(req, keep)
	case store.SearchWalkShorter:
		if l := q.kinds[req.Kind]; q.kinds != nil && (l == nil || len(l.entries) < page.Total) {
			return q.searchKind(req, keep)
		}
	}
	from := min(max(req.From, 0), page.Total)
	jobs := q.ordered(req.State, req.Newest, from+req.Examine)
	var found []*job
	for _, j := range jobs[min(from, len(jobs)):] {
		if len(found) == req.Limit {
			break
		}
		page.Examined++
		if keep(j) {
			found = append(found, j)
		}
	}
	page.Jobs = copyJobs(found)
	return page, nil
}

// holdsText reports whether rec's kind, args bytes or metadata hold text
// (lower case), ASCII case aside.
func holdsText(rec *store.JobRecord, text []byte) bool {
	if bytes.Contains(bytes.ToLower(rec.Args), text) || bytes.Contains(bytes.ToLower([]byte(rec.Kind)), text) {
		return true
	}
	for k, v := range rec.Meta {
		if bytes.Contains(bytes.ToLower([]byte(k+v)), text) {
			return true
		}
	}
	return false
}
