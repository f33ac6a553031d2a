package memstore

import "github.com/hopperq/hopper/store"

// numLevels is how many priority levels there are (store.MinPriority to
// store.MaxPriority).
const numLevels = store.MaxPriority - store.MinPriority + 1

// readyLevels is the ready state of a queue: one readyList per priority,
// claimed highest priority first, each first in first out. A job's level
// is its rec.Priority, which must not change while it is in. Every
// operation is O(1) but for the walk over the (seven) levels.
type readyLevels struct {
	lv [numLevels]readyList // highest priority first
	n  int
}

// level returns the list of priority p.
func (r *readyLevels) level(p int) *readyList {
	return &r.lv[store.MaxPriority-p]
}

// pushBack appends j to the back of its level.
func (r *readyLevels) pushBack(j *job) {
	r.level(j.rec.Priority).pushBack(j)
	r.n++
}

// pushFront puts j at the front of its level.
func (r *readyLevels) pushFront(j *job) {
	r.level(j.rec.Priority).pushFront(j)
	r.n++
}

// remove takes j, which must be in r, out of it.
func (r *readyLevels) remove(j *job) {
	r.level(j.rec.Priority).remove(j)
	r.n--
}

// popFront removes and returns the job a claim takes next, or nil when r
// is empty.
func (r *readyLevels) popFront() *job {
	j := r.front()
	if j != nil {
		r.remove(j)
	}
	return j
}

// front returns the job a claim takes next, or nil.
func (r *readyLevels) front() *job {
	if r.n == 0 {
		return nil
	}
	for i := range r.lv {
		if j := r.lv[i].head; j != nil {
			return j
		}
	}
	return nil
}

// back returns the job a claim takes last, or nil.
func (r *readyLevels) back() *job {
	if r.n == 0 {
		return nil
	}
	for i := len(r.lv) - 1; i >= 0; i-- {
		if j := r.lv[i].tail; j != nil {
			return j
		}
	}
	return nil
}

// next returns the job a claim takes after j, or nil.
func (r *readyLevels) next(j *job) *job {
	if j.next != nil {
		return j.next
	}
	for i := store.MaxPriority - j.rec.Priority + 1; i < len(r.lv); i++ {
		if h := r.lv[i].head; h != nil {
			return h
		}
	}
	return nil
}

// prev returns the job a claim takes before j, or nil.
func (r *readyLevels) prev(j *job) *job {
	if j.prev != nil {
		return j.prev
	}
	for i := store.MaxPriority - j.rec.Priority - 1; i >= 0; i-- {
		if t := r.lv[i].tail; t != nil {
			return t
		}
	}
	return nil
}

// oldest returns the job that has been ready longest (the earliest of the
// levels' heads by when it became ready), or nil.
func (r *readyLevels) oldest() *job {
	var best *job
	for i := range r.lv {
		j := r.lv[i].head
		if j != nil && (best == nil || readySince(j).Before(readySince(best))) {
			best = j
		}
	}
	return best
}
