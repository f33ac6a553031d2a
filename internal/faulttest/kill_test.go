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
	// that misses (the victim held no lease) is tried again on the next
	// worker, and that one must have jobs to run.
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

	type held struct {
		id       string
		token    uint64
		deadline int64 // ms, store clock
	}
	var killed []held
	// A kill lands a moment after the ledger shows the victim running a
	// job; a 40 ms job may have ended by then on a loaded machine. Such a
	// kill still kills a worker, but only kills that caught a lease count.
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
		victim.Kill()
		r.addFault(victim.Name())
		delete(workers, victim.Name())
		// The victim can extend no more: the deadlines of its leases in
		// the unack set are final.
		mine := map[string]bool{}
		for _, e := range r.ledgers() {
			if e.Ev == "claim" && e.Child == victim.Name() {
				mine[fmt.Sprintf("%s|%d", e.Job, e.Token)] = true
			}
		}
		zs, err := rdb.ZRangeWithScores(ctx, "{"+r.prefix+":default}:u", 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, z := range zs {
			m := z.Member.(string)
			if !mine[m] {
				continue
			}
			id, tok, _ := strings.Cut(m, "|")
			token, _ := strconv.ParseUint(tok, 10, 64)
			killed = append(killed, held{id, token, int64(z.Score)})
			n++
		}
		spawn()
		if n == 0 {
			misses++
			t.Logf("kill %d: worker %s held no lease when the signal landed; killing another", k+1, victim.Name())
			if misses > 2*kills {
				t.Fatalf("%d kills landed between jobs: the workers hardly run any", misses)
			}
			continue
		}
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
