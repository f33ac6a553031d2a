package memstore

// jobHeap is a binary min-heap of jobs ordered by (at, seq), indexed: each job
// knows its position (job.idx), so any job can be removed or re-keyed in
// O(log n). A job is in at most one heap at a time.
type jobHeap []*job

// before reports whether a sorts before b: earlier at, then earlier arrival.
func before(a, b *job) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// peek returns the earliest job, or nil when h is empty.
func (h jobHeap) peek() *job {
	if len(h) == 0 {
		return nil
	}
	return h[0]
}

// push adds j.
func (h *jobHeap) push(j *job) {
	j.idx = len(*h)
	*h = append(*h, j)
	h.up(j.idx)
}

// remove takes j, which must be in h, out of it.
func (h *jobHeap) remove(j *job) {
	s := *h
	i, last := j.idx, len(s)-1
	if i != last {
		s[i] = s[last]
		s[i].idx = i
	}
	s[last] = nil
	*h = s[:last]
	if i != last && !h.down(i) {
		h.up(i)
	}
	j.idx = -1
}

// fix restores the order after j's key changed.
func (h jobHeap) fix(j *job) {
	if !h.down(j.idx) {
		h.up(j.idx)
	}
}

func (h jobHeap) up(i int) {
	j := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !before(j, h[p]) {
			break
		}
		h[i] = h[p]
		h[i].idx = i
		i = p
	}
	h[i] = j
	j.idx = i
}

// down sifts the job at i down and reports whether it moved.
func (h jobHeap) down(i int) bool {
	j, n, start := h[i], len(h), i
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && before(h[r], h[c]) {
			c = r
		}
		if !before(h[c], j) {
			break
		}
		h[i] = h[c]
		h[i].idx = i
		i = c
	}
	h[i] = j
	j.idx = i
	return i != start
}
