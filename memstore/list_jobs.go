package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/hopperq/hopper"
)

// Limits of ListJobs.
const (
	defaultListLimit = 50     // ListRequest.Limit when zero
	maxListLimit     = 1000   // largest page
	defaultScanLimit = 10_000 // ListRequest.ScanLimit when zero
)

// ListJobs returns a page of deep copies of the jobs of req.Queue in
// req.State, in the order documented by hopper.ListRequest (ready first in
// first out; pending and retry by due time; unack by lease deadline; garbage
// and done by finish time; ties in the order the jobs entered the state),
// reversed when req.Newest.
//
// Limit zero means 50 and is capped at 1000. Unfiltered, Total is the number
// of jobs in the state. With Kind or Match set, the listing examines the
// first ScanLimit jobs in that order (zero means 10,000), Offset and Limit
// apply to the matches, Total counts the matches among the examined jobs and
// Truncated says the state held more. Match runs on copies, after the
// queue's lock is released, so it may call the store.
//
// An invalid state gives an error wrapping hopper.ErrInvalidState; a
// negative Offset, Limit or ScanLimit one wrapping hopper.ErrInvalidConfig.
// A queue never seen gives an empty page.
func (s *Store) ListJobs(ctx context.Context, req hopper.ListRequest) (hopper.JobPage, error) {
	var page hopper.JobPage
	if err := ctx.Err(); err != nil {
		return page, err
	}
	if err := hopper.ValidateQueue(req.Queue); err != nil {
		return page, err
	}
	if !req.State.Valid() {
		return page, fmt.Errorf("%w: %q", hopper.ErrInvalidState, req.State)
	}
	if req.Offset < 0 || req.Limit < 0 || req.ScanLimit < 0 {
		return page, fmt.Errorf("%w: ListRequest Offset %d, Limit %d and ScanLimit %d must not be negative",
			hopper.ErrInvalidConfig, req.Offset, req.Limit, req.ScanLimit)
	}
	limit := req.Limit
	if limit == 0 {
		limit = defaultListLimit
	}
	limit = min(limit, maxListLimit)
	scan := req.ScanLimit
	if scan == 0 {
		scan = defaultScanLimit
	}
	q := s.lookup(req.Queue)
	if q == nil {
		return page, nil
	}

	q.mu.Lock()
	n := q.count(req.State)
	if req.Kind == "" && req.Match == nil {
		off := min(req.Offset, n)
		jobs := q.ordered(req.State, req.Newest, off+limit)
		page.Total = n
		page.Jobs = copyJobs(jobs[min(off, len(jobs)):])
		q.mu.Unlock()
		return page, nil
	}
	page.Truncated = n > scan
	var matched []*hopper.JobRecord // kind matches, copied, when Match must run
	for _, j := range q.ordered(req.State, req.Newest, scan) {
		if req.Kind != "" && j.rec.Kind != req.Kind {
			continue
		}
		if req.Match != nil {
			matched = append(matched, copyRecord(&j.rec))
			continue
		}
		if page.Total >= req.Offset && len(page.Jobs) < limit {
			page.Jobs = append(page.Jobs, copyRecord(&j.rec))
		}
		page.Total++
	}
	q.mu.Unlock()
	if req.Match == nil {
		return page, nil
	}
	for _, r := range matched {
		if !req.Match(r) {
			continue
		}
		if page.Total >= req.Offset && len(page.Jobs) < limit {
			page.Jobs = append(page.Jobs, r)
		}
		page.Total++
	}
	return page, nil
}

// copyJobs returns deep copies of the records of jobs.
func copyJobs(jobs []*job) []*hopper.JobRecord {
	out := make([]*hopper.JobRecord, len(jobs))
	for i, j := range jobs {
		out[i] = copyRecord(&j.rec)
	}
	return out
}

// ordered returns the first k jobs in st in listing order, or the last k
// latest first when newest. q.mu must be held.
func (q *queue) ordered(st hopper.JobState, newest bool, k int) []*job {
	if st == hopper.StateReady {
		out := make([]*job, 0, min(k, q.ready.n))
		j := q.ready.head
		if newest {
			j = q.ready.tail
		}
		for j != nil && len(out) < k {
			out = append(out, j)
			if newest {
				j = j.prev
			} else {
				j = j.next
			}
		}
		return out
	}
	asc := before
	if st == hopper.StateDone { // done's heap is keyed by expiry
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
// best in a bounded max-heap: O(n log k).
func smallest(items []*job, k int, less func(a, b *job) bool) []*job {
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
