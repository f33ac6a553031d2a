package memstore

import (
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// numLevels is how many priority levels there are (store.MinPriority to
// store.MaxPriority).
const numLevels = store.MaxPriority - store.MinPriority + 1

// readyLevels is the ready state of a queue. Ungrouped jobs wait in one
// readyList per priority, claimed highest priority first, each first in
// first out; grouped jobs (store.NewJob.Group) wait in one readyList per
// group. Once a queue has seen a group, claims rotate (take) over the
// groups that have ready jobs and room under their cap, one job each in
// turn, the ungrouped jobs taking their turn as one more member. A job's
// level and group must not change while it is in. Every operation is O(1)
// but for the walk over the (seven) levels.
type readyLevels struct {
	lv    [numLevels]readyList // highest priority first
	plain int                  // jobs in lv
	n     int                  // jobs in lv and in the groups

	groups map[string]*groupState
	// rot holds the groups due a turn, from rot[head] on; "" stands for
	// the ungrouped jobs. A member is in at most once (its active flag,
	// plainActive for ""), and may have lost its jobs or its room since:
	// take skips it then.
	rot         []string
	head        int
	plainActive bool
	// held names the groups with a hold (groupState.heldUntil): out of the
	// rotation until it ends, when the first take after puts them back.
	held map[string]struct{}
	// sweepMs is when forgetQuiet next looks at the groups (Unix ms).
	sweepMs int64
}

// takeLimits are what take needs of the queue: its cap per group, its
// rate limit per group (its terms; zero for none) and now, in Unix ms and
// µs.
type takeLimits struct {
	defCap       int
	rate         store.RateTerms
	nowMs, nowUs int64
}

// groupState is one group of a queue.
type groupState struct {
	ready   readyList
	running int  // its jobs in unack
	limit   int  // its own cap, 0 for none (the queue's then)
	active  bool // in rot
	// heldUntil is when its hold ends (Unix ms; 0 for none); rate is its
	// rate limit's window.
	heldUntil int64
	rate      rateLog
}

// level returns the list of priority p.
func (r *readyLevels) level(p int) *readyList {
	return &r.lv[store.MaxPriority-p]
}

// grouped reports whether the queue has seen a grouped job or a group cap.
func (r *readyLevels) grouped() bool { return r.groups != nil }

// group returns the state of group g, created when missing.
func (r *readyLevels) group(g string) *groupState {
	if r.groups == nil {
		r.groups = make(map[string]*groupState)
		if r.plain > 0 {
			r.activate("") // the ungrouped jobs join the rotation
		}
	}
	gs := r.groups[g]
	if gs == nil {
		gs = &groupState{}
		r.groups[g] = gs
	}
	return gs
}

// forgetIdle drops group g's state when it holds nothing worth keeping.
func (r *readyLevels) forgetIdle(g string, gs *groupState) {
	if gs.ready.n == 0 && gs.running == 0 && gs.limit == 0 && !gs.active && gs.heldUntil == 0 && len(gs.rate.entries) == 0 && gs.rate.tatUs == 0 {
		delete(r.groups, g)
	}
}

// forgetQuiet, at most once a minute, empties the rate windows that no
// longer count a claim at nowMs (by t, the rate per group; zero when the
// queue has none) and forgets the groups left with no state: only a
// claim of a group trims its window, so a group no longer claimed from
// would be kept for good. O(groups) once a minute.
func (r *readyLevels) forgetQuiet(nowMs int64, t store.RateTerms) {
	if r.groups == nil || nowMs < r.sweepMs {
		return
	}
	r.sweepMs = nowMs + time.Minute.Milliseconds()
	for g, gs := range r.groups {
		gs.rate.idle(nowMs*1000, t)
		r.forgetIdle(g, gs)
	}
}

// activate puts g in the rotation unless it is there.
func (r *readyLevels) activate(g string) {
	if g == "" {
		if r.plainActive {
			return
		}
		r.plainActive = true
	} else {
		gs := r.groups[g]
		if gs.active {
			return
		}
		gs.active = true
	}
	if r.head > 64 && r.head*2 > len(r.rot) {
		r.rot = append(r.rot[:0], r.rot[r.head:]...)
		r.head = 0
	}
	r.rot = append(r.rot, g)
}

// pushBack appends j to the back of its level or group.
func (r *readyLevels) pushBack(j *job) { r.push(j, (*readyList).pushBack) }

// pushFront puts j at the front of its level or group.
func (r *readyLevels) pushFront(j *job) { r.push(j, (*readyList).pushFront) }

// push puts j in its group's list or its level's with put, and the group
// (or the ungrouped jobs, in a queue with groups) in the rotation.
func (r *readyLevels) push(j *job, put func(*readyList, *job)) {
	r.n++
	if g := j.rec.Group; g != "" {
		put(&r.group(g).ready, j)
		r.activate(g)
		return
	}
	put(r.level(j.rec.Priority), j)
	r.plain++
	if r.grouped() {
		r.activate("")
	}
}

// remove takes j, which must be in r, out of it.
func (r *readyLevels) remove(j *job) {
	r.n--
	if g := j.rec.Group; g != "" {
		gs := r.groups[g]
		gs.ready.remove(j)
		r.forgetIdle(g, gs)
		return
	}
	r.level(j.rec.Priority).remove(j)
	r.plain--
}

// hold keeps group g out of the rotation until untilMs (a hold in force is
// never shortened).
func (r *readyLevels) hold(g string, untilMs int64) {
	gs := r.group(g)
	gs.heldUntil = max(gs.heldUntil, untilMs)
	if r.held == nil {
		r.held = make(map[string]struct{})
	}
	r.held[g] = struct{}{}
}

// unhold puts the groups whose hold ended by nowMs back in the rotation,
// and returns the ms until the earliest remaining one ends (0 for none).
func (r *readyLevels) unhold(nowMs int64) int64 {
	next := int64(0)
	for g := range r.held {
		gs := r.groups[g]
		if gs.heldUntil <= nowMs {
			gs.heldUntil = 0
			delete(r.held, g)
			if gs.ready.n > 0 {
				r.activate(g)
			} else {
				r.forgetIdle(g, gs)
			}
			continue
		}
		if left := gs.heldUntil - nowMs; next == 0 || left < next {
			next = left
		}
	}
	return next
}

// groupQuantum is the most jobs a group gives one claim per turn
// (store.GroupQuantum, which redisstore's Lua reads too): a claim
// takes turns over ceil(n/groupQuantum) members of the rotation at a time
// (more after a turn of thin groups, see passSize), sharing n among them,
// so a claim over many groups does not pay a turn per job, and every
// group with ready jobs still takes its turn in order.
const groupQuantum = store.GroupQuantum

// passSize returns how many members of the rotation a claim's next turn
// visits, to take want jobs, after a turn over pm members that gave pg
// jobs (pm 0 for the first turn): want / groupQuantum, rounded up, at
// first; then want divided by what a member gave in the last turn, at
// least one and at most groupQuantum. So a claim over groups of one or
// two ready jobs each (many tenants with a job or two) takes them in two
// turns, not in a turn per few jobs. redisstore's groups/take.lua sizes
// its passes the same way.
func passSize(want, pm, pg int) int {
	if pm == 0 || pg >= pm*groupQuantum {
		return (want + groupQuantum - 1) / groupQuantum
	}
	pg = max(pg, pm)
	return (want*pm + pg - 1) / pg
}

// take removes and appends to out, and returns, up to n jobs a claim
// takes next: without groups the first n in claim order; with groups,
// turns over the rotation, each member giving an equal share (at most
// groupQuantum when there are enough members) while it has room under its
// cap and rate limit; a grouped job counts as running in its group and in
// its rate window. A group that used its window's share is held until the
// oldest claim it counts leaves the window. A claim calls unhold first.
func (r *readyLevels) take(lim takeLimits, n int, out []*job) []*job {
	if !r.grouped() {
		for len(out) < n {
			j := r.popPlain()
			if j == nil {
				break
			}
			out = append(out, j)
		}
		return out
	}
	var back []string
	pm, pg := 0, 0 // the last turn's members and the jobs they gave (see passSize)
	for len(out) < n && r.head < len(r.rot) {
		want := n - len(out)
		k := min(passSize(want, pm, pg), len(r.rot)-r.head)
		start := len(out)
		members := r.rot[r.head : r.head+k]
		r.head += k
		share := (want + k - 1) / k
		back = back[:0]
		for i, g := range members {
			if len(out) == n {
				// No room left in the claim: the rest keep their turn,
				// first in the rotation.
				r.head -= len(members) - i
				break
			}
			members[i] = ""
			share := min(share, n-len(out))
			if g == "" {
				r.plainActive = false
				got := 0
				for got < share {
					j := r.popPlain()
					if j == nil {
						break
					}
					out = append(out, j)
					got++
				}
				if got == share && r.plain > 0 {
					back = append(back, "")
				}
				continue
			}
			gs := r.groups[g]
			gs.active = false
			limit := gs.limit
			if limit == 0 {
				limit = lim.defCap
			}
			if gs.heldUntil > lim.nowMs || gs.ready.n == 0 || (limit > 0 && gs.running >= limit) {
				r.forgetIdle(g, gs)
				continue
			}
			take := share
			if limit > 0 {
				take = min(take, limit-gs.running)
			}
			if lim.rate.Limit > 0 {
				room, freeUs := gs.rate.room(lim.nowUs, lim.rate)
				if room <= 0 {
					r.hold(g, (lim.nowUs+rateRetryIn(lim.nowUs, freeUs, lim.rate).Microseconds()+999)/1000)
					continue
				}
				take = min(take, room)
			}
			got := 0
			for got < take && gs.ready.n > 0 {
				out = append(out, gs.ready.popFront())
				got++
			}
			r.n -= got
			gs.running += got
			if lim.rate.Limit > 0 {
				first := gs.rate.count(lim.nowUs, got, lim.rate)
				if lim.rate.Smooth() {
					for i, j := range out[len(out)-got:] {
						j.after = startAfter(lim.nowUs, first, i, lim.rate)
					}
				}
			}
			if gs.ready.n > 0 && (limit == 0 || gs.running < limit) {
				back = append(back, g)
			} else {
				r.forgetIdle(g, gs)
			}
		}
		for _, g := range back {
			r.activate(g)
		}
		pm, pg = k, len(out)-start
	}
	if r.head == len(r.rot) {
		r.rot, r.head = r.rot[:0], 0
	}
	return out
}

// popPlain removes and returns the first ungrouped job, or nil.
func (r *readyLevels) popPlain() *job {
	if r.plain == 0 {
		return nil
	}
	for i := range r.lv {
		if j := r.lv[i].popFront(); j != nil {
			r.plain--
			r.n--
			return j
		}
	}
	return nil
}

// ended notes that grouped job j left unack; it returns true when j's
// group may start a job now that it could not before (a claim is worth
// waking). defCap is the queue's cap per group.
func (r *readyLevels) ended(j *job, defCap int) bool {
	gs := r.groups[j.rec.Group]
	if gs == nil || gs.running == 0 {
		return false
	}
	gs.running--
	limit := gs.limit
	if limit == 0 {
		limit = defCap
	}
	if gs.ready.n > 0 && (limit == 0 || gs.running < limit) {
		wasActive := gs.active
		r.activate(j.rec.Group)
		return !wasActive
	}
	r.forgetIdle(j.rec.Group, gs)
	return false
}

// setLimit sets group g's own cap (0 removes it); it returns true when
// the group may start a job it could not before.
func (r *readyLevels) setLimit(g string, limit, defCap int) bool {
	gs := r.group(g)
	gs.limit = limit
	if limit == 0 {
		limit = defCap
	}
	if gs.ready.n > 0 && (limit == 0 || gs.running < limit) && !gs.active {
		r.activate(g)
		return true
	}
	r.forgetIdle(g, gs)
	return false
}

// limitsChanged activates every group that has ready jobs and room under
// the queue's new cap per group; it returns true when one was activated.
func (r *readyLevels) limitsChanged(defCap int) bool {
	woke := false
	for g, gs := range r.groups {
		limit := gs.limit
		if limit == 0 {
			limit = defCap
		}
		if gs.ready.n > 0 && (limit == 0 || gs.running < limit) && !gs.active {
			r.activate(g)
			woke = true
		}
	}
	return woke
}

// groupNames returns the names of the groups, sorted.
func (r *readyLevels) groupNames() []string {
	names := make([]string, 0, len(r.groups))
	for g := range r.groups {
		names = append(names, g)
	}
	slices.Sort(names)
	return names
}

// first returns some ready job, or nil: the one a listing shows first.
func (r *readyLevels) first() *job {
	if out := r.list(false, 1); len(out) > 0 {
		return out[0]
	}
	return nil
}

// list returns up to k ready jobs in listing order: the ungrouped ones
// highest priority first, then each group's in group name order, every
// list first in first out; newest reverses the whole.
func (r *readyLevels) list(newest bool, k int) []*job {
	var lists []*readyList
	for i := range r.lv {
		lists = append(lists, &r.lv[i])
	}
	for _, g := range r.groupNames() {
		lists = append(lists, &r.groups[g].ready)
	}
	if newest {
		slices.Reverse(lists)
	}
	out := make([]*job, 0, min(k, r.n))
	for _, l := range lists {
		j := l.head
		if newest {
			j = l.tail
		}
		for j != nil && len(out) < k {
			out = append(out, j)
			if newest {
				j = j.prev
			} else {
				j = j.next
			}
		}
	}
	return out
}

// oldest returns the job that has been ready longest (the earliest of the
// lists' heads by when it became ready), or nil.
func (r *readyLevels) oldest() *job {
	var best *job
	consider := func(j *job) {
		if j != nil && (best == nil || readySince(j).Before(readySince(best))) {
			best = j
		}
	}
	for i := range r.lv {
		consider(r.lv[i].head)
	}
	for _, gs := range r.groups {
		consider(gs.ready.head)
	}
	return best
}
