package sched

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// TestPeriodicOutageIsLoggedOnce: a schedule whose enqueues fail for a
// stretch of ticks (Redis stopped), its clock moving on by more than
// retrylog.Every halfway, then succeed, logs its failures as one outage:
// the first, at most one more after retrylog.Every, and one line once
// enqueueing works again. The lines that say ticks were lost still count
// every tick dropped or given up. Every try of every tick was logged, and
// every tick dropped: an outside trial stopping Redis for 30 s under a
// schedule every 2 s logged 120 lines.
func TestPeriodicOutageIsLoggedOnce(t *testing.T) {
	const period = 20 * time.Millisecond
	var offset atomic.Int64 // the clock's lead over time.Now, moved on halfway through the outage
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	logs := &records{}

	var mu sync.Mutex
	phase := 0 // 0, 1: the store is down, before and after the clock moves on; 2: up
	fails, phaseFails := 0, 0
	failed := map[time.Time]bool{} // the ticks whose enqueue failed, whether their error may have stored them
	phaseTicks := map[time.Time]bool{}
	stored := map[time.Time]bool{}
	runLoop(t, memstore.New(nil), PeriodicConfig{
		Jobs: []Periodic{{Name: "every", Spec: "@every 20ms", Queue: "q", Kind: "k", Job: tickJob("q"), Next: every(period)}},
		Now:  now, Logger: slog.New(logs),
		Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
			mu.Lock()
			defer mu.Unlock()
			tick := jobs[0].RunAt
			if phase < 2 && phaseFails >= 20 && len(phaseTicks) >= 4 {
				phase, phaseFails, phaseTicks = phase+1, 0, map[time.Time]bool{}
				if phase == 1 {
					offset.Add(int64(retrylog.Every + time.Second))
				}
			}
			if phase == 2 {
				stored[tick] = true
				return nil
			}
			fails++
			phaseFails++
			phaseTicks[tick] = true
			// Some ticks' calls lose their reply: those ticks are given
			// up, not dropped (they may still run).
			mayRun := tick.UnixMilli()/period.Milliseconds()%3 == 0
			failed[tick] = mayRun
			if mayRun {
				return replyLost{errors.New("i/o timeout")}
			}
			return errors.New("connection refused")
		}})

	// lostTicks are the ticks of failed that were never stored, and how
	// many of them may still run.
	lostTicks := func() (lost, mayRun int) {
		mu.Lock()
		defer mu.Unlock()
		if phase < 2 {
			return -1, -1 // not known yet
		}
		for tick, may := range failed {
			if !stored[tick] {
				lost++
				if may {
					mayRun++
				}
			}
		}
		return lost, mayRun
	}
	// Every tick lost is counted by some line, once the store is back: a
	// line of its own, or one that counts those it left out. The drops of
	// the outage's last ticks may be logged after the line saying that
	// enqueueing works again.
	testutil.EventuallyTrue(t, 30*time.Second, "lines counting every tick lost, and how many of them may still run", func() bool {
		lost, mayRun := lostTicks()
		gotLost, gotMayRun := logs.lostTicks()
		return lost >= 0 && gotLost >= lost && gotMayRun >= mayRun
	})
	lost, mayRun := lostTicks()
	mu.Lock()
	total := fails
	mu.Unlock()
	if lost < 4 {
		t.Fatalf("the outage lost %d ticks; the test wants a few", lost)
	}

	// The first failure, and one after retrylog.Every (the clock moved on
	// once), not one a try: there were total.
	if n := len(logs.with("hopper: enqueueing periodic job failed")); n == 0 || n > 2 {
		t.Errorf("%d lines of failed enqueues for one outage of %d failures over a little more than retrylog.Every, want 1 or 2:\n%s", n, total, logs)
	}
	// The first lost tick, one after retrylog.Every, and one of a fire
	// that logs its drop after enqueueing worked again: the others are
	// counted in those lines, and in the one saying it works again.
	if n := len(logs.with("its next tick is due, so this one is")); n == 0 || n > 3 {
		t.Errorf("%d lines of dropped ticks for one outage that lost %d, want 1 to 3:\n%s", n, lost, logs)
	}
	if mayRun == 0 || mayRun == lost {
		t.Logf("the outage lost %d ticks, %d of which may still run: only one kind of lost tick was counted", lost, mayRun)
	}
	testutil.EventuallyTrue(t, 30*time.Second, "a line saying enqueueing works again", func() bool {
		return len(logs.with("hopper: enqueueing periodic jobs works again")) > 0
	})
	again := logs.with("hopper: enqueueing periodic jobs works again")
	if len(again) != 1 {
		t.Fatalf("%d lines saying enqueueing works again, want 1:\n%s", len(again), logs)
	}
	// Its failures: all of them, unless the fire of the last one counted
	// it after the next tick's enqueue succeeded.
	if n := again[0].int("failures"); n != int64(total) && n != int64(total-1) {
		t.Errorf("the line saying enqueueing works again counts %d failures, want %d:\n%s", n, total, logs)
	}
	if again[0].Level != slog.LevelInfo {
		t.Errorf("the line saying enqueueing works again is at %v, want INFO", again[0].Level)
	}
}

// records is a slog handler that keeps every record. It is safe for
// concurrent use.
type records struct {
	mu   sync.Mutex
	list []record
}

// record is a log line: its message, level and attributes.
type record struct {
	Msg   string
	Level slog.Level
	attrs map[string]slog.Value
}

// int is r's integer attribute key, 0 if it has none.
func (r record) int(key string) int64 {
	if v := r.attrs[key]; v.Kind() == slog.KindInt64 {
		return v.Int64()
	}
	return 0
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }

func (h *records) Handle(_ context.Context, r slog.Record) error {
	rec := record{Msg: r.Message, Level: r.Level, attrs: map[string]slog.Value{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.Resolve()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.list = append(h.list, rec)
	return nil
}

func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h *records) WithGroup(string) slog.Handler { return h }

// with returns the records whose message starts with msg, or, when msg
// does not start with "hopper:", contains it; "hopper: x failed" does not
// match "hopper: x failed; ...".
func (h *records) with(msg string) []record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []record
	for _, r := range h.list {
		if r.Msg == msg || !strings.HasPrefix(msg, "hopper:") && strings.Contains(r.Msg, msg) {
			out = append(out, r)
		}
	}
	return out
}

// lostTicks counts the ticks the records say were lost: one a line
// saying a tick was dropped or given up, and those each line says it
// left out; and of them, those that may still run.
func (h *records) lostTicks() (lost, mayRun int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.list {
		if strings.Contains(r.Msg, "so this one is") {
			lost++
			if strings.Contains(r.Msg, "it may still run") {
				mayRun++
			}
		}
		lost += int(r.int("ticks_lost_not_logged"))
		mayRun += int(r.int("of_which_may_still_run"))
	}
	return lost, mayRun
}

func (h *records) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	for _, r := range h.list {
		b.WriteString(r.Level.String() + " " + r.Msg)
		for k, v := range r.attrs {
			b.WriteString(" " + k + "=" + v.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}
