package pgxoutbox

import (
	"sync"
	"time"
)

// heldRows are rows a batch left in place (their queue's store call
// failed, or they are in a newer format), which the relay's next batches
// pass over until their time. The rows stay first in the table's order:
// every batch took them again, so a queue that failed held back the rows
// of every other queue behind it (a whole batch of them stored nothing),
// and a newer row was warned about at every poll.
type heldRows struct {
	mu    sync.Mutex
	until map[int64]time.Time
}

// maxHeld bounds the rows a relay passes over: past it, rows kept are
// taken again by the next batch, as before holding.
const maxHeld = 10_000

// newerHold is how long a row in a newer format is passed over: a newer
// relay, running beside this one in a rolling upgrade, takes it meanwhile.
const newerHold = time.Minute

// skip returns the rows still held at now, dropping those whose time came.
func (h *heldRows) skip(now time.Time) []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]int64, 0, len(h.until))
	for seq, t := range h.until {
		if now.Before(t) {
			out = append(out, seq)
		} else {
			delete(h.until, seq)
		}
	}
	return out
}

// hold passes over seqs until until, and returns those it did not hold
// before (the ones worth a log line).
func (h *heldRows) hold(seqs []int64, until time.Time) (fresh []int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until == nil {
		h.until = make(map[int64]time.Time)
	}
	for _, seq := range seqs {
		if _, ok := h.until[seq]; !ok {
			if len(h.until) >= maxHeld {
				continue
			}
			fresh = append(fresh, seq)
		}
		h.until[seq] = until
	}
	return fresh
}
