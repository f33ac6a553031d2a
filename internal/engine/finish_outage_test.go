package engine

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// finishDown is a Store whose Finish fails its first fails calls (Redis
// failing over), then applies every request, recording it.
type finishDown struct {
	store.Store
	mu      sync.Mutex
	fails   int
	applied []string
}

func (s *finishDown) Finish(_ context.Context, reqs []store.AttemptEnd) ([]error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fails > 0 {
		s.fails--
		return nil, errors.New("dial tcp: connection refused")
	}
	for _, r := range reqs {
		s.applied = append(s.applied, r.ID)
	}
	return make([]error, len(reqs)), nil
}

// TestFinisherLogsAnOutageOnce: an ack that fails six times in a row (a
// failover) logs its first failure and, once it goes through, one line
// saying outcomes are reported again, with the count; every try of the
// backoff was logged.
func TestFinisherLogsAnOutageOnce(t *testing.T) {
	var logs syncBuffer
	fs := &finishDown{fails: 6}
	r := newWorker(fs, testConfig(slog.New(slog.NewTextHandler(&logs, nil))), nil)
	go r.fin.loop()
	t.Cleanup(r.fin.close)
	r.fin.add(running(r, "q", "a"))
	testutil.EventuallyTrue(t, testutil.Wait, "the ack to go through after the outage", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return len(fs.applied) == 1
	})
	if n := strings.Count(logs.String(), "reporting job outcomes failed"); n != 1 {
		t.Fatalf("%d lines of failed outcomes for one outage of 6 failures, want 1:\n%s", n, logs.String())
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the line saying outcomes are reported again", func() bool {
		return strings.Contains(logs.String(), "reporting job outcomes works again")
	})
	out := logs.String()
	for _, want := range []string{"queue=q", "failures=6", "failures_not_logged=0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the outage's lines lack %s:\n%s", want, out)
		}
	}
	// The next outage is logged anew.
	fs.mu.Lock()
	fs.fails = 1
	fs.mu.Unlock()
	r.fin.add(running(r, "q", "b"))
	testutil.EventuallyTrue(t, testutil.Wait, "the second ack to go through", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return len(fs.applied) == 2
	})
	if n := strings.Count(logs.String(), "reporting job outcomes failed"); n != 2 {
		t.Fatalf("%d lines of failed outcomes after a second outage, want 2:\n%s", n, logs.String())
	}
}

// syncBuffer is a buffer safe for the finisher's goroutines.
type syncBuffer = testutil.SyncBuffer
