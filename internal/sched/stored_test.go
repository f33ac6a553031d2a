package sched

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// listFails is a ScheduleStore whose version reads work and whose
// ListStoredSchedules fails its first fails calls, as a Redis at
// maxmemory refused its MULTI, then returns no schedule.
type listFails struct {
	store.ScheduleStore
	mu    sync.Mutex
	fails int
	lists int
}

func (s *listFails) SchedulesVersion(context.Context) (int64, error) { return 1, nil }

func (s *listFails) ListStoredSchedules(context.Context) ([]store.StoredSchedule, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.lists <= s.fails {
		return nil, 0, errors.New("OOM command not allowed when used memory > 'maxmemory'")
	}
	return nil, 1, nil
}

// TestStoredLogsAnOutageOnce: the stored schedules' loop whose reads fail
// at every poll logs the first failure and, once they work, one line
// saying so with the count; it logged every poll (once a second for as
// long as Redis stayed full).
func TestStoredLogsAnOutageOnce(t *testing.T) {
	const fails = 20
	ss := &listFails{fails: fails}
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	out := func() string {
		mu.Lock()
		defer mu.Unlock()
		return logs.String()
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunStored(ctx, memstore.New(nil), ss, StoredConfig{Now: time.Now, Logger: logger, Poll: time.Millisecond,
			Build:   func(store.StoredSchedule) (Periodic, error) { return Periodic{}, errors.New("none expected") },
			Enqueue: func(context.Context, []*store.NewJob) error { return nil }})
	}()
	testutil.EventuallyTrue(t, testutil.Wait, "a read after the failing ones", func() bool {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		return ss.lists > fails
	})
	if n := strings.Count(out(), "reading the stored schedules failed"); n != 1 {
		t.Fatalf("%d lines of failed reads for one outage of %d failures, want 1:\n%s", n, fails, out())
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the line saying the reads work again", func() bool {
		return strings.Contains(out(), "reading the stored schedules works again")
	})
	cancel()
	<-done
	got := out()
	for _, want := range []string{"failures_not_logged=0", "failures=20"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the outage's lines lack %s:\n%s", want, got)
		}
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
