package faulttest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
)

// What the production-shape tests count, two ways:
//
//   - sent: the commands a worker process sends, counted in the process by
//     a go-redis hook (testworker -cmds), each command of a pipeline on its
//     own. It misses only the pub/sub connection's SUBSCRIBE and its
//     health-check PING every 5 s, which do not pass through hooks.
//   - Redis: INFO commandstats of the server, summed over every command
//     except the test's own INFO and CONFIG. Redis counts there the
//     commands a script runs (redis.call) as well as the script call, so a
//     claim on an empty queue is an EVALSHA and the few reads it makes.

// cmdCounts is what testworker -cmds writes (testworker/cmds.go).
type cmdCounts struct {
	Local  int64            `json:"local"`
	Total  int64            `json:"total"`
	ByName map[string]int64 `json:"by_name"`
}

func (c cmdCounts) at() time.Time { return time.UnixMilli(c.Local) }

// readCmds reads a worker's latest command counts.
func (w *workerProc) readCmds(t *testing.T) cmdCounts {
	t.Helper()
	b, err := os.ReadFile(w.cmds)
	if err != nil {
		t.Fatalf("worker %s command counts: %v", w.id, err)
	}
	var c cmdCounts
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("worker %s command counts: %v", w.id, err)
	}
	return c
}

// nextCmds waits for the worker's next write of its counts (every 100 ms)
// and returns it, so that a window starts and ends on fresh counts.
func (w *workerProc) nextCmds(t *testing.T) cmdCounts {
	t.Helper()
	prev := w.readCmds(t)
	var c cmdCounts
	testutil.EventuallyTrue(t, 10*time.Second, "fresh command counts of worker "+w.id, func() bool {
		c = w.readCmds(t)
		return c.Local > prev.Local
	})
	return c
}

// sub returns the counts of c minus those of before, by name.
func (c cmdCounts) sub(before cmdCounts) cmdCounts {
	d := cmdCounts{Local: c.Local - before.Local, Total: c.Total - before.Total, ByName: map[string]int64{}}
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
func waitSettled(t *testing.T, w *workerProc, maxRate float64, timeout time.Duration) time.Duration {
	t.Helper()
	const settleWindow = 2 * time.Second
	begin := time.Now()
	var hist []cmdCounts
	var last error
	for time.Since(begin) < timeout {
		c := w.nextCmds(t)
		hist = append(hist, c)
		for len(hist) > 1 && c.at().Sub(hist[1].at()) >= settleWindow {
			hist = hist[1:]
		}
		if d := c.at().Sub(hist[0].at()); d >= settleWindow {
			rate := perSecond(c.Total-hist[0].Total, d)
			if rate <= maxRate {
				return time.Since(begin)
			}
			last = fmt.Errorf("worker %s still sends %.1f commands/s: %s", w.id, rate, mix(c.sub(hist[0]).ByName, d))
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
// queues, with the library's defaults (5 s idle wait, 5 s scheduler
// MaxSleep, 5 s heartbeat). Once it has settled, it sends at most 20
// commands a second in all (claims, maintenance, heartbeat), counted
// both in the worker and by Redis (INFO commandstats, which also counts
// the commands its scripts run).
func TestManyQueuesIdleCost(t *testing.T) {
	const (
		queues  = 1000
		window  = 10 * time.Second
		maxRate = 20.0
	)
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	r := newRun(t, rdb)
	w := startWorker(t, r.dir, "w0", workerOpts{addr: srv.Addr, prefix: r.prefix, queueCount: queues, defaults: true, cmds: true})
	w.waitUp(t)
	settled := waitSettled(t, w, maxRate, 60*time.Second)
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

	sent0, red0 := w.nextCmds(t), readRedisStats(t, rdb)
	time.Sleep(window)
	sent1, red1 := w.nextCmds(t), readRedisStats(t, rdb)
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
	if redisRate > maxRate {
		t.Errorf("an idle worker serving %d queues costs Redis %.2f commands/s (INFO commandstats), want at most %v", queues, redisRate, maxRate)
	}
	w.stop(t)
}
