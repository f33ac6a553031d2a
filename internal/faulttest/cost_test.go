package faulttest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
)

// What the production-shape tests count, two ways:
//
//   - sent: the commands a worker process sends, counted in the process by
//     a go-redis hook (workerOpts.Cmds), each command of a pipeline on its
//     own. It misses only the pub/sub connection's SUBSCRIBE and its
//     health-check PING every 5 s, which do not pass through hooks.
//   - Redis: INFO commandstats of the server, summed over every command
//     except the test's own INFO and CONFIG. Redis counts there the
//     commands a script runs (redis.call) as well as the script call, so a
//     claim on an empty queue is an EVALSHA and the few reads it makes.

// cmdCounts are the cumulative counts of the commands a worker sent, as it
// reported them ("cmds" events, every 100 ms: worker_cmds_test.go).
type cmdCounts struct {
	local  time.Time // when the worker reported them, by its clock
	Total  int64
	ByName map[string]int64
}

func (c cmdCounts) at() time.Time { return c.local }

// lastCmds returns the latest command counts worker w reported, and
// whether it reported any.
func (r *run) lastCmds(w *proctest.Proc) (cmdCounts, bool) {
	evs := r.ledgers()
	for i := len(evs) - 1; i >= 0; i-- {
		if e := evs[i]; e.Ev == "cmds" && e.Child == w.Name() {
			c := cmdCounts{local: at(e), ByName: e.Counts}
			for _, n := range e.Counts {
				c.Total += n
			}
			return c, true
		}
	}
	return cmdCounts{}, false
}

// nextCmds waits for the worker's next report of its counts (every 100 ms)
// and returns it, so that a window starts and ends on fresh counts.
func (r *run) nextCmds(w *proctest.Proc) cmdCounts {
	r.t.Helper()
	prev, _ := r.lastCmds(w)
	var c cmdCounts
	r.procs.EventuallyTrue(10*time.Second, "fresh command counts of worker "+w.Name(), func() bool {
		var ok bool
		c, ok = r.lastCmds(w)
		return ok && c.local.After(prev.local)
	})
	return c
}

// sub returns the counts of c minus those of before, by name.
func (c cmdCounts) sub(before cmdCounts) cmdCounts {
	d := cmdCounts{local: c.local, Total: c.Total - before.Total, ByName: map[string]int64{}}
	for k, v := range c.ByName {
		if n := v - before.ByName[k]; n != 0 {
			d.ByName[k] = n
		}
	}
	return d
}

// redisStats is a snapshot of INFO commandstats: calls by command.
type redisStats struct {
	at    time.Time
	calls map[string]int64
}

// readRedisStats reads INFO commandstats of one server.
func readRedisStats(t *testing.T, rdb *redis.Client) redisStats {
	t.Helper()
	text, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	s := redisStats{at: time.Now(), calls: map[string]int64{}}
	for _, line := range strings.Split(text, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		name = strings.TrimPrefix(name, "cmdstat_")
		for _, f := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(f, "calls="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				s.calls[name] = n
			}
		}
	}
	return s
}

// ownCommand reports whether a commandstats entry is the test's own
// measuring (INFO, CONFIG), left out of every sum.
func ownCommand(name string) bool {
	return name == "info" || name == "config" || strings.HasPrefix(name, "config|")
}

// sub returns the calls of s minus those of before, without the test's
// own INFO and CONFIG, and their sum.
func (s redisStats) sub(before redisStats) (map[string]int64, int64) {
	d := map[string]int64{}
	var total int64
	for k, v := range s.calls {
		if ownCommand(k) {
			continue
		}
		if n := v - before.calls[k]; n != 0 {
			d[k] = n
			total += n
		}
	}
	return d, total
}

// mix formats counts by name, largest first, with their rate over d.
func mix(counts map[string]int64, d time.Duration) string {
	names := slices.Collect(maps.Keys(counts))
	slices.SortFunc(names, func(a, b string) int {
		if counts[a] != counts[b] {
			return int(counts[b] - counts[a])
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d (%.2f/s)", n, counts[n], float64(counts[n])/d.Seconds())
	}
	return b.String()
}

// perSecond is n over d.
func perSecond(n int64, d time.Duration) float64 { return float64(n) / d.Seconds() }

// waitSettled waits until the worker has sent at most maxRate commands a
// second over the last settleWindow, and returns how long that took.
func waitSettled(r *run, w *proctest.Proc, maxRate float64, timeout time.Duration) time.Duration {
	t := r.t
	t.Helper()
	const settleWindow = 2 * time.Second
	begin := time.Now()
	var hist []cmdCounts
	var last error
	for time.Since(begin) < timeout {
		c := r.nextCmds(w)
		hist = append(hist, c)
		for len(hist) > 1 && c.at().Sub(hist[1].at()) >= settleWindow {
			hist = hist[1:]
		}
		if d := c.at().Sub(hist[0].at()); d >= settleWindow {
			rate := perSecond(c.Total-hist[0].Total, d)
			if rate <= maxRate {
				return time.Since(begin)
			}
			last = fmt.Errorf("worker %s still sends %.1f commands/s: %s", w.Name(), rate, mix(c.sub(hist[0]).ByName, d))
		}
	}
	t.Fatalf("worker did not settle within %v: %v", timeout, last)
	return 0
}

// dropDepthSamples deletes the throughput hash of every queue of prefix,
// where Maintain keeps its once-a-minute depth samples, and returns how
// many it deleted.
func dropDepthSamples(t *testing.T, rdb *redis.Client, prefix string) int {
	t.Helper()
	ctx := t.Context()
	n := 0
	iter := rdb.Scan(ctx, 0, "{"+prefix+":*}:t", 1000).Iterator()
	for iter.Next(ctx) {
		if err := rdb.Del(ctx, iter.Val()).Err(); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestManyQueuesIdleCost is scenario 8: one worker serving 1,000 idle
// queues that have each held a job, with the library's defaults (5 s
// idle wait, 5 s scheduler MaxSleep, 5 s heartbeat). Once it has settled, it sends at most 20
// commands a second in all (claims, maintenance, heartbeat, the stored
// schedules' and the workflows' looks), and Redis runs at most 25 for it
// (INFO commandstats, which also counts the commands its scripts run).
func TestManyQueuesIdleCost(t *testing.T) {
	const (
		queues  = 1000
		window  = 10 * time.Second
		maxRate = 20.0
		// maxRedis bounds what Redis runs for the worker: its scripts'
		// own calls count, and a worker with every default service also
		// reads the stored schedules' version every second and looks at
		// the workflows' index every 2 s (about 21.5 commands/s in all).
		maxRedis = 25.0
	)
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	names := make([]string, queues)
	for i := range names {
		names[i] = fmt.Sprintf("q%04d", i)
	}
	r := newRun(t, rdb, names...)
	// Every queue has held a job, drained at the start: the store knows
	// them all (ListQueues), as it knows a production worker's. The
	// workflows' sweep of task ends looked at every known queue every 2 s
	// (500 commands a second here) with no workflow in the store.
	for i, q := range names {
		if _, err := hopper.Enqueue(t.Context(), r.client, faultJob{N: i}, &hopper.EnqueueOpts{Queue: q}); err != nil {
			t.Fatal(err)
		}
	}
	w := r.startWorker("w0", workerOpts{Addr: srv.Addr, Prefix: r.prefix, QueueCount: queues, Defaults: true, Cmds: true})
	w.WaitReady()
	r.procs.Eventually(2*time.Minute, func() error {
		if got := len(finals(r.ledgers())); got < queues {
			return fmt.Errorf("%d of %d jobs acked", got, queues)
		}
		return nil
	})
	settled := waitSettled(r, w, maxRate, 60*time.Second)
	// A few seconds more: the first idle waits and sweeps are part of
	// the steady state, not of the start.
	time.Sleep(3 * time.Second)
	// Maintain samples a queue's depth once a minute, and with 1,000
	// queues each pass is on a queue not sampled yet that minute whenever
	// the window spans a minute's turn. Dropping the samples taken so far
	// makes every window that worst case.
	if n := dropDepthSamples(t, rdb, r.prefix); n == 0 {
		t.Fatal("no queue's throughput hash to drop: the worker maintained no queue")
	}

	sent0, red0 := r.nextCmds(w), readRedisStats(t, rdb)
	time.Sleep(window)
	sent1, red1 := r.nextCmds(w), readRedisStats(t, rdb)
	sent := sent1.sub(sent0)
	sentD := sent1.at().Sub(sent0.at())
	redis, redisTotal := red1.sub(red0)
	redisD := red1.at.Sub(red0.at)
	sentRate, redisRate := perSecond(sent.Total, sentD), perSecond(redisTotal, redisD)
	t.Logf("%d queues: the worker settled (at most %v commands/s over 2 s) %v after it was up", queues, maxRate, settled.Round(time.Millisecond))
	t.Logf("idle, sent by the worker over %v: %d commands, %.2f/s: %s", sentD.Round(time.Millisecond), sent.Total, sentRate, mix(sent.ByName, sentD))
	t.Logf("idle, Redis INFO commandstats over %v (scripts' own calls included): %d commands, %.2f/s: %s", redisD.Round(time.Millisecond), redisTotal, redisRate, mix(redis, redisD))
	if sentRate > maxRate {
		t.Errorf("an idle worker serving %d queues sends %.2f commands/s, want at most %v", queues, sentRate, maxRate)
	}
	if redisRate > maxRedis {
		t.Errorf("an idle worker serving %d queues costs Redis %.2f commands/s (INFO commandstats), want at most %v", queues, redisRate, maxRedis)
	}
	w.Stop()
}
