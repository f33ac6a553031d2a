package faulttest

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
)

// TestKillWorkers is scenario 1: workers killed with SIGKILL mid-job,
// several times in a run of at least 20k jobs. No job is lost, and each
// job the killed worker held is redelivered no earlier than its lease
// deadline and within the visibility timeout + 1 s after it.
func TestKillWorkers(t *testing.T) {
	const (
		jobs  = 20000
		kills = 4
		lease = time.Second
	)
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	r := newRun(t, rdb)
	opts := workerOpts{Addr: srv.Addr, Prefix: r.prefix, Concurrency: 20, Lease: lease, Sleep: 40 * time.Millisecond}
	workers := map[string]*proctest.Proc{}
	next := 0
	spawn := func() *proctest.Proc {
		id := "w" + strconv.Itoa(next)
		next++
		w := r.startWorker(id, opts)
		workers[id] = w
		return w
	}
	for range 3 {
		spawn().WaitReady()
	}

	ctx := t.Context()
	// The producer goes on past jobs until the kills have landed: a kill
	// that finds no lease (the victim stalled past its leases before it
	// died) is tried again on the next worker, and that one must have jobs
	// to run.
	var killsDone atomic.Bool
	defer killsDone.Store(true) // a failed kill loop stops the producer too
	type production struct {
		n   int
		err error
	}
	produced := make(chan production, 1)
	go func() {
		n, err := r.enqueuePaced(ctx, "default", jobs, 200, func() bool { return !killsDone.Load() })
		produced <- production{n, err}
	}()

	var killed []heldLease
	misses := 0
	prog := newProgress()
	for k := 0; k < kills; {
		// Kill the oldest live worker once it runs jobs and a share of the
		// run has been acked since the last kill.
		var victim *proctest.Proc
		for i := range next {
			if w := workers["w"+strconv.Itoa(i)]; w != nil {
				victim = w
				break
			}
		}
		want := (k + 1) * jobs / (kills + 2)
		r.procs.Eventually(60*time.Second, func() error {
			prog.update(r.ledgers())
			if n := len(prog.finished); n < want {
				return fmt.Errorf("%d jobs finished, waiting for %d before kill %d", n, want, k+1)
			}
			if prog.running(victim.Name()) == 0 {
				return fmt.Errorf("worker %s runs no job", victim.Name())
			}
			return nil
		})
		held, diedBy := r.killHolding(victim, "default")
		delete(workers, victim.Name())
		spawn()
		if len(held) == 0 {
			// Its leases had all run out before it died: it had stalled
			// (its last tick tells), or the ledger, which lags the worker
			// by what its pipe holds, showed it running a job it had
			// finished since and it held no other.
			misses++
			granted, ticked := r.lastSeen(victim.Name())
			t.Logf("kill %d: worker %s held no lease when it died, by %s; the last deadline it was granted was %s, its last tick %s; killing another",
				k+1, victim.Name(), diedBy.Format("15:04:05.000"), granted.Format("15:04:05.000"), ticked.Format("15:04:05.000"))
			if misses > 2*kills {
				t.Fatalf("%d kills found no lease: the workers held none when they died", misses)
			}
			continue
		}
		killed = append(killed, held...)
		k++
	}
	killsDone.Store(true)
	p := <-produced
	if p.err != nil {
		t.Fatalf("enqueue: %v", p.err)
	}
	if n := r.ackedCount(); n != p.n {
		t.Fatalf("%d enqueues acknowledged, want %d", n, p.n)
	}
	r.waitQuiet(2 * time.Minute)
	for _, w := range workers {
		w.Stop()
	}

	// Redelivery timing, by the store's clock: the next claim of each job
	// the killed workers held.
	claims := map[string][]proctest.Event{}
	for _, e := range r.ledgers() {
		if e.Ev == "claim" {
			claims[e.Job] = append(claims[e.Job], e)
		}
	}
	late := lease + time.Second
	var worst int64
	for _, h := range killed {
		redo := nextClaim(claims[h.id], h.token)
		switch {
		case redo == nil:
			t.Errorf("job %s held by a killed worker was never claimed again", h.id)
		case redo.AttemptedAt.UnixMilli() < h.deadline:
			t.Errorf("job %s redelivered at %d, %d ms before its lease deadline", h.id, redo.AttemptedAt.UnixMilli(), h.deadline-redo.AttemptedAt.UnixMilli())
		case redo.AttemptedAt.UnixMilli() > h.deadline+late.Milliseconds():
			t.Errorf("job %s redelivered %d ms after its lease deadline, want within %v", h.id, redo.AttemptedAt.UnixMilli()-h.deadline, late)
		default:
			worst = max(worst, redo.AttemptedAt.UnixMilli()-h.deadline)
		}
	}
	t.Logf("%d kills; %d leases held by killed workers, redelivered at most %d ms after their deadline", kills, len(killed), worst)
	r.check(1)
}

// progress follows the ledger as it grows, from the events that came
// since its last look: the jobs finished (isFinal) and, by worker, the
// jobs started and not ended. The kill loop polls it. A scan of the whole
// ledger at every poll slowed the run as the ledger grew (the producer
// goes on until the kills have landed, so a run of missed kills grows
// it), and the slower run grew it more: in CI, with seven kills that
// found no lease, the test ran past the package's 10 minutes.
type progress struct {
	seen     int
	finished map[jobKey]int
	open     map[string]map[string]int // worker -> "<job>/<token>" -> starts less ends
}

func newProgress() *progress {
	return &progress{finished: map[jobKey]int{}, open: map[string]map[string]int{}}
}

// update reads the events of evs (the ledger, which only grows) that
// came since the last update.
func (p *progress) update(evs []proctest.Event) {
	for _, e := range evs[p.seen:] {
		if isFinal(e) {
			p.finished[keyOf(e)]++
		}
		if e.Ev != "start" && e.Ev != "end" {
			continue
		}
		w := p.open[e.Child]
		if w == nil {
			w = map[string]int{}
			p.open[e.Child] = w
		}
		k := fmt.Sprintf("%s/%d", e.Job, e.Token)
		if e.Ev == "start" {
			w[k]++
		} else if w[k]--; w[k] == 0 {
			delete(w, k)
		}
	}
	p.seen = len(evs)
}

// running returns how many jobs worker has started and not ended.
func (p *progress) running(worker string) int {
	n := 0
	for _, v := range p.open[worker] {
		n += v
	}
	return n
}

// running returns how many jobs worker has started and not ended in evs.
func running(evs []proctest.Event, worker string) int {
	p := newProgress()
	p.update(evs)
	return p.running(worker)
}

// heldLease is a lease a killed worker held when it died: its job, its token
// and its deadline, final (ms, store clock).
type heldLease struct {
	id       string
	token    uint64
	deadline int64
}

// killHolding kills w with SIGKILL and returns the leases it held on queue
// when it died, with their final deadlines, and a time by which it had
// died.
//
// The unack set is read as soon as w is dead, not once the test has read
// all w reported: that can take seconds (w's ledger pipe holds seconds of
// its events, and the test binary copies its whole ledger as it grows),
// and meanwhile the deadlines of w's leases pass and the other workers
// reclaim them, so that a kill that caught leases looked as if it had
// caught none. Every lease the ledger shows w was granted, did not send a
// finish for and still held past that read must be in the unack set then,
// with at least the deadline granted; a second read, once the ledger is
// complete, gives the final deadlines (a renewal sent just before the
// kill may land after the first read).
func (r *run) killHolding(w *proctest.Proc, queue string) ([]heldLease, time.Time) {
	t := r.t
	t.Helper()
	ctx := t.Context()
	key := "{" + r.prefix + ":" + queue + "}:u"
	read := func() map[string]int64 {
		zs, err := r.rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		m := make(map[string]int64, len(zs))
		for _, z := range zs {
			m[z.Member.(string)] = int64(z.Score)
		}
		return m
	}
	gone := make(chan struct{})
	go func() { // Kill returns once the test has read all w reported
		defer close(gone)
		w.Kill()
	}()
	pid := w.PID()
	r.procs.EventuallyTrue(time.Minute, "the death of worker "+w.Name(), func() bool {
		dead, known := isDead(pid)
		if !known {
			select {
			case <-gone:
				return true
			default:
			}
		}
		return dead
	})
	// Recorded once w is dead: every line w wrote was stamped before
	// (unconfirmedAcks matches w's last acks to the fault by time).
	r.addFault(w.Name())
	first := read()
	diedBy := time.Now() // the read's reply: Redis ran it before this
	<-gone

	// w's leases by the ledger: granted (claim or renewal), not refused,
	// and no finish sent.
	granted := map[string]time.Time{} // "<job>|<token>" -> the last deadline granted
	finishing := map[string]bool{}
	for _, e := range r.ledgers() {
		if e.Child != w.Name() || e.Queue != queue {
			continue
		}
		m := e.Job + "|" + strconv.FormatUint(e.Token, 10)
		switch e.Ev {
		case "claim", "renew":
			if e.Deadline.After(granted[m]) {
				granted[m] = e.Deadline
			}
		case "try", "ext":
			finishing[m] = true
		}
	}
	for m, dl := range granted {
		if finishing[m] || !dl.After(diedBy) {
			continue
		}
		switch score, ok := first[m]; {
		case !ok:
			t.Errorf("lease %s of killed worker %s: granted until %s and not finished, yet not in the unack set at %s", m, w.Name(), dl.Format("15:04:05.000"), diedBy.Format("15:04:05.000"))
		case score < dl.UnixMilli():
			t.Errorf("lease %s of killed worker %s: granted until %s, yet its deadline in the unack set is %s", m, w.Name(), dl.Format("15:04:05.000"), time.UnixMilli(score).Format("15:04:05.000"))
		}
	}
	final := read()
	var held []heldLease
	for m, score := range first {
		if _, mine := granted[m]; !mine {
			continue
		}
		if s, ok := final[m]; ok {
			score = s
		} else if finishing[m] {
			continue // acked by a finish sent just before the kill, or reclaimed
		}
		id, tok, _ := strings.Cut(m, "|")
		token, _ := strconv.ParseUint(tok, 10, 64)
		held = append(held, heldLease{id, token, score})
	}
	return held, diedBy
}

// lastSeen returns, by the ledger, the latest lease deadline worker was
// granted and its last tick.
func (r *run) lastSeen(worker string) (granted, ticked time.Time) {
	for _, e := range r.ledgers() {
		switch {
		case e.Child != worker:
		case (e.Ev == "claim" || e.Ev == "renew") && e.Deadline.After(granted):
			granted = e.Deadline
		case e.Ev == "tick":
			ticked = at(e)
		}
	}
	return granted, ticked
}
