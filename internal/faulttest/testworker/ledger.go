package main

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// event is one ledger line. Times are Unix milliseconds: Local from this
// process's true wall clock (never skewed), the others from the store's
// clock as the store reported them.
type event struct {
	Ev       string `json:"ev"` // up, claim, start, end, try (a finish sent), fin (its result), ext (a renewal refused), exterr (a lease not checked)
	Worker   string `json:"w"`
	Queue    string `json:"q,omitempty"`
	ID       string `json:"id,omitempty"`
	Attempt  int    `json:"att,omitempty"`
	Token    uint64 `json:"tok,omitempty"`
	Claimed  int64  `json:"claimed,omitempty"`  // claim: AttemptedAt (store clock)
	Deadline int64  `json:"deadline,omitempty"` // claim: lease deadline (store clock)
	RunAt    int64  `json:"runat,omitempty"`    // claim: when the job fell due (store clock)
	Outcome  string `json:"out,omitempty"`      // fin: the requested outcome
	Err      string `json:"err,omitempty"`      // end: handler error; fin, ext: store error
	Local    int64  `json:"local"`
}

// ledger writes events as JSON lines, one Write per line, so that a line
// is either in the file whole or not at all when the process is killed.
// It is safe for concurrent use.
type ledger struct {
	mu     sync.Mutex
	w      io.Writer
	worker string
}

func (l *ledger) log(e event) {
	e.Worker = l.worker
	e.Local = time.Now().UnixMilli()
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // the event has only plain fields
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b)
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
