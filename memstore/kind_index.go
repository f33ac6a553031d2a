package memstore

import (
	"cmp"
	"slices"

	"github.com/hopperq/hopper/store"
)

// kindIndex is a queue's index of jobs by kind (store.QueueConfig.KindIndex):
// per kind, the jobs in the order they were enqueued. An entry names a job
// by ID and birth, so that a job deleted and enqueued again under the same
// ID, or a job reused from the free list, never passes for the one indexed;
// entries of deleted jobs stay until a compaction drops them. Guarded by the
// queue's mutex.
type kindIndex map[string]*kindList

// kindList is the index of one kind.
type kindList struct {
	entries []kindEntry
	dead    int // entries whose job is gone or changed kind
}

// kindEntry is one indexed job.
type kindEntry struct {
	id   string
	born uint64
}

// indexed reports whether e still names job j of kind.
func (q *queue) indexed(e kindEntry, kind string) *job {
	if j := q.jobs[e.id]; j != nil && j.born == e.born && j.rec.Kind == kind {
		return j
	}
	return nil
}

// indexKind adds j to the kind index, if the queue keeps one. q.mu must
// be held.
func (q *queue) indexKind(j *job) {
	if q.kinds == nil {
		return
	}
	l := q.kinds[j.rec.Kind]
	if l == nil {
		l = &kindList{}
		q.kinds[j.rec.Kind] = l
	}
	l.entries = append(l.entries, kindEntry{id: j.rec.ID, born: j.born})
}

// unindexKind notes that j, of kind, is leaving the index: deleted, or
// changing kind. q.mu must be held. A list with more than an eighth of its
// entries dead is compacted, which keeps its length within 8/7 of the jobs
// it names at an amortised cost of a few entries per deletion; a search
// compacts the list it walks.
func (q *queue) unindexKind(kind string) {
	l := q.kinds[kind]
	if l == nil {
		return
	}
	l.dead++
	if l.dead >= 64 && l.dead*8 >= len(l.entries) {
		q.compactKind(kind, l)
	}
}

// compactKind drops the entries of l, the list of kind, whose job is gone.
// q.mu must be held.
func (q *queue) compactKind(kind string, l *kindList) {
	live := l.entries[:0]
	for _, e := range l.entries {
		if q.indexed(e, kind) != nil {
			live = append(live, e)
		}
	}
	clear(l.entries[len(live):])
	l.entries, l.dead = live, 0
	if len(live) == 0 {
		delete(q.kinds, kind)
	}
}

// setKindIndex builds the index from the jobs there (on) or drops it.
// q.mu must be held.
func (q *queue) setKindIndex(on bool) {
	if !on {
		q.kinds = nil
		return
	}
	if q.kinds != nil {
		return
	}
	q.kinds = kindIndex{}
	all := make([]*job, 0, len(q.jobs))
	for _, j := range q.jobs {
		all = append(all, j)
	}
	slices.SortFunc(all, func(a, b *job) int { return cmp.Compare(a.born, b.born) })
	for _, j := range all {
		q.indexKind(j)
	}
}

// searchKind examines the kind index of req.Kind for SearchJobs. q.mu must
// be held.
func (q *queue) searchKind(req store.SearchJobsOpts, keep func(*job) bool) (store.SearchPage, error) {
	page := store.SearchPage{Walk: store.SearchWalkKind}
	if q.kinds == nil {
		return page, store.ErrNoKindIndex
	}
	var entries []kindEntry
	if l := q.kinds[req.Kind]; l != nil {
		// A search counts live jobs only, as Redis's index does.
		if l.dead > 0 {
			q.compactKind(req.Kind, l)
		}
		entries = l.entries
	}
	page.Total = len(entries)
	var found []*job
	for n := min(max(req.From, 0), len(entries)); n < len(entries) && page.Examined < req.Examine && len(found) < req.Limit; n++ {
		page.Examined++
		e := entries[n]
		if req.Newest {
			e = entries[len(entries)-1-n]
		}
		if j := q.indexed(e, req.Kind); j != nil && j.rec.State == req.State && keep(j) {
			found = append(found, j)
		}
	}
	page.Jobs = copyJobs(found)
	return page, nil
}
