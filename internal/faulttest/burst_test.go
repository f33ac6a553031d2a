package faulttest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
)

// burstResult is what one burst of TestManyQueuesBurst measured.
type burstResult struct {
	n             int
	startLag      time.Duration // last start - last enqueue returned
	redisTotal    int64         // Redis commands from the enqueue to the end of the idle window
	sentTotal     int64         // commands the worker sent meanwhile
	idleSentRate  float64       // after the burst, commands/s the worker sent
	idleRedisRate float64       // after the burst, Redis commands/s
}

func (b burstResult) redisPerQueue() float64 { return float64(b.redisTotal) / float64(b.n) }
func (b burstResult) sentPerQueue() float64  { return float64(b.sentTotal) / float64(b.n) }

// TestManyQueuesBurst is scenario 9: one worker (concurrency 32, the
// library's default waits) serving N idle queues, N = 50, 500 and 5,000;
// the test enqueues one job on each queue at once. Every job starts within
// 1 s of the last enqueue (required up to 500 queues, reported for 5,000);
// from 1 s after the last job ended the worker is back to its idle cost
// (at most 20 commands sent a second, over a window that covers the lease
// deadlines of the burst's claims, when the scheduler may look at the
// queues again; the Redis-side rate, scripts' calls included, is
// reported); and the Redis commands of a whole burst grow about linearly
// with N: per queue, at most 3 times as many for 5,000 queues as for 50.
func TestManyQueuesBurst(t *testing.T) {
	var results []burstResult
	for _, n := range []int{50, 500, 5000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			results = append(results, runBurst(t, n, n <= 500))
		})
	}
	for _, b := range results {
		t.Logf("N=%d: last start %v after the last enqueue; burst %d Redis commands (%.1f per queue), %d sent by the worker (%.1f per queue); then %.2f sent/s, %.2f Redis/s",
			b.n, b.startLag.Round(time.Millisecond), b.redisTotal, b.redisPerQueue(), b.sentTotal, b.sentPerQueue(), b.idleSentRate, b.idleRedisRate)
	}
	i50 := slices.IndexFunc(results, func(b burstResult) bool { return b.n == 50 })
	i5k := slices.IndexFunc(results, func(b burstResult) bool { return b.n == 5000 })
	if i50 < 0 || i5k < 0 {
		t.Fatal("a burst did not complete; cannot compare the cost per queue")
	}
	small, big := results[i50], results[i5k]
	ratio := big.redisPerQueue() / small.redisPerQueue()
	t.Logf("Redis commands per queue: %.1f for N=5000, %.1f for N=50: ratio %.2f (sent by the worker: ratio %.2f)",
		big.redisPerQueue(), small.redisPerQueue(), ratio, big.sentPerQueue()/small.sentPerQueue())
	if ratio > 3 {
		t.Errorf("a burst over 5,000 queues costs %.1f Redis commands per queue, %.2f times the %.1f of 50 queues; want at most 3 times (about linear)",
			big.redisPerQueue(), ratio, small.redisPerQueue())
	}
}

// runBurst runs one burst over n queues; strict makes the 1 s start bound
// an assertion rather than a report.
func runBurst(t *testing.T, n int, strict bool) burstResult {
	const (
		concurrency = 32
		lease       = 2 * time.Second
		maxRate     = 20.0
		producers   = 16
		minWindow   = 3 * time.Second
	)
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("q%04d", i)
	}
	r := newRun(t, rdb, names...)
	ctx := t.Context()
	w := r.startWorker("w0", workerOpts{
		Addr: srv.Addr, Prefix: r.prefix, QueueCount: n, Concurrency: concurrency, Lease: lease, Defaults: true, Cmds: true,
	})
	w.WaitReady()
	settled := waitSettled(r, w, maxRate, 2*time.Minute)
	time.Sleep(2 * time.Second)
	t.Logf("N=%d: the worker settled %v after it was up", n, settled.Round(time.Millisecond))

	// The burst: one job on every queue, from several goroutines (the
	// store merges concurrent enqueues into pipelined round trips).
	sent0, red0 := r.nextCmds(w), readRedisStats(t, rdb)
	begin := time.Now()
	var mu sync.Mutex
	ackAt := map[jobKey]time.Time{}
	var wg sync.WaitGroup
	for g := range producers {
		wg.Go(func() {
			for i := g; i < n; i += producers {
				info, err := hopper.Enqueue(ctx, r.client, faultJob{N: i}, &hopper.EnqueueOpts{Queue: names[i]})
				now := time.Now()
				if err != nil {
					t.Errorf("enqueue on %s: %v", names[i], err)
					return
				}
				k := jobKey{info.Queue, info.ID}
				r.mu.Lock()
				r.acked[k] = true
				r.mu.Unlock()
				mu.Lock()
				ackAt[k] = now
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	lastEnqueue := time.Now()
	if t.Failed() {
		t.FailNow()
	}
	r.procs.Eventually(2*time.Minute, func() error {
		if got := len(finals(r.ledgers())); got < n {
			return fmt.Errorf("%d of %d jobs acked", got, n)
		}
		return nil
	})

	// Start and end times from the ledger.
	starts := map[jobKey]time.Time{}
	var lastStart, lastEnd, lastClaim, firstClaim time.Time
	for _, e := range r.ledgers() {
		switch e.Ev {
		case "start":
			if _, ok := starts[keyOf(e)]; !ok {
				starts[keyOf(e)] = at(e)
			}
			lastStart = later(lastStart, at(e))
		case "end":
			lastEnd = later(lastEnd, at(e))
		case "claim":
			lastClaim = later(lastClaim, at(e))
			if firstClaim.IsZero() || at(e).Before(firstClaim) {
				firstClaim = at(e)
			}
		}
	}
	var lat []time.Duration
	for k, at := range ackAt {
		lat = append(lat, max(0, starts[k].Sub(at)))
	}
	res := burstResult{n: n, startLag: lastStart.Sub(lastEnqueue)}
	t.Logf("N=%d: enqueued in %v; enqueue->start p50 %v p99 %v max %v; last start %v after the last enqueue; last end %v after it",
		n, lastEnqueue.Sub(begin).Round(time.Millisecond), pct(lat, 50), pct(lat, 99), pct(lat, 100),
		res.startLag.Round(time.Millisecond), lastEnd.Sub(lastEnqueue).Round(time.Millisecond))
	if res.startLag > time.Second {
		if strict {
			t.Errorf("N=%d: the last job started %v after the last enqueue, want within 1 s", n, res.startLag.Round(time.Millisecond))
		} else {
			t.Logf("N=%d: NOT within 1 s: the last job started %v after the last enqueue (reported, not asserted, for this N)", n, res.startLag.Round(time.Millisecond))
		}
	}

	// Back to idle from 1 s after the last job ended, over a window that
	// covers the lease deadlines of the burst's claims.
	winStart := lastEnd.Add(time.Second)
	if late := time.Since(winStart); late > 0 {
		t.Logf("N=%d: the idle window starts %v late (the ledger showed the last end only then)", n, late.Round(time.Millisecond))
	}
	time.Sleep(time.Until(winStart))
	winEnd := later(time.Now().Add(minWindow), lastClaim.Add(lease+time.Second))
	c0, redA := r.nextCmds(w), readRedisStats(t, rdb)
	samples := []cmdCounts{c0}
	for time.Now().Before(winEnd) {
		samples = append(samples, r.nextCmds(w))
	}
	c1, redB := samples[len(samples)-1], readRedisStats(t, rdb)
	idle := c1.sub(c0)
	idleD := c1.at().Sub(c0.at())
	redIdle, redIdleTotal := redB.sub(redA)
	redIdleD := redB.at.Sub(redA.at)
	res.idleSentRate, res.idleRedisRate = perSecond(idle.Total, idleD), perSecond(redIdleTotal, redIdleD)
	peak := 0.0 // the highest rate over any second of the window
	for i, a := range samples {
		for _, b := range samples[i+1:] {
			if d := b.at().Sub(a.at()); d >= time.Second {
				peak = max(peak, perSecond(b.Total-a.Total, d))
				break
			}
		}
	}
	// Where the scheduler's Maintain calls of the window fall: in the
	// span of the burst's lease deadlines (each claim + lease, as the
	// scheduler learnt them when the claim signalled it) or elsewhere.
	const maintain = "script:maintain"
	var atDeadlines, elsewhere int64
	for i := 1; i < len(samples); i++ {
		m := samples[i].ByName[maintain] - samples[i-1].ByName[maintain]
		if a, b := samples[i-1].at(), samples[i].at(); !b.Before(firstClaim.Add(lease)) && !a.After(lastClaim.Add(lease+100*time.Millisecond)) {
			atDeadlines += m
		} else {
			elsewhere += m
		}
	}
	t.Logf("N=%d: after the burst, sent over %v: %.2f/s (peak second %.1f/s): %s", n, idleD.Round(time.Millisecond), res.idleSentRate, peak, mix(idle.ByName, idleD))
	t.Logf("N=%d: of its Maintain calls, %d fell in the span of the burst's lease deadlines (claims %v..%v after the first + %v lease), %d elsewhere",
		n, atDeadlines, time.Duration(0), lastClaim.Sub(firstClaim).Round(time.Millisecond), lease, elsewhere)
	t.Logf("N=%d: after the burst, Redis over %v (scripts' own calls included, reported only): %.2f/s: %s", n, redIdleD.Round(time.Millisecond), res.idleRedisRate, mix(redIdle, redIdleD))
	if res.idleSentRate > maxRate {
		t.Errorf("N=%d: from 1 s after the last job ended the worker sends %.2f commands/s (%d Maintain calls at the burst's lease deadlines), want its idle rate (at most %v)",
			n, res.idleSentRate, atDeadlines, maxRate)
	}

	// The whole burst, from the enqueue to the end of the idle window.
	burst := c1.sub(sent0)
	redBurst, redBurstTotal := redB.sub(red0)
	res.sentTotal, res.redisTotal = burst.Total, redBurstTotal
	t.Logf("N=%d: the burst sent %d commands (%.1f per queue): %s", n, burst.Total, res.sentPerQueue(), mix(burst.ByName, c1.at().Sub(sent0.at())))
	t.Logf("N=%d: the burst cost Redis %d commands (%.1f per queue), the test's enqueues included: %s", n, redBurstTotal, res.redisPerQueue(), mix(redBurst, redB.at.Sub(red0.at)))

	w.Stop()
	r.check(1)
	return res
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// pct returns the p-th percentile of ds (p in 0..100, nearest rank),
// rounded to the millisecond; 0 for none.
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := max(0, int(math.Ceil(p/100*float64(len(s))))-1)
	return s[i].Round(time.Millisecond)
}
