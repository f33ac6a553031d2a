package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// ackAnswers is a Store whose Finish answers each call with the next of
// its answers: lost, the acks applied and the reply lost with the link
// (the caller sees a read timeout); gone, each job not found (an ack
// without a retention deleted it); ok, each ack applied.
type ackAnswers struct {
	store.Store
	mu      sync.Mutex
	answers []string
}

func (s *ackAnswers) Finish(_ context.Context, reqs []store.AttemptEnd) ([]error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	answer := "ok"
	if len(s.answers) > 0 {
		answer, s.answers = s.answers[0], s.answers[1:]
	}
	errs := make([]error, len(reqs))
	switch answer {
	case "lost":
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	case "gone":
		for i, r := range reqs {
			errs[i] = fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, r.ID, r.Queue)
		}
	}
	return errs, nil
}

// nextHook returns the next outcome the worker confirmed to its hooks.
func nextHook(t *testing.T, r *worker, logs *syncBuffer) hookCall {
	t.Helper()
	select {
	case h := <-r.hooks:
		return h
	case <-time.After(testutil.Wait):
		t.Fatalf("no outcome confirmed in %v; logs:\n%s", testutil.Wait, logs.String())
		return hookCall{}
	}
}

func hookWorker(st store.Store) (*worker, *syncBuffer) {
	logs := new(syncBuffer)
	cfg := testConfig(slog.New(slog.NewTextHandler(logs, nil)))
	cfg.Finished = func(context.Context, *store.JobRecord, store.Outcome, error) {}
	r := newWorker(st, cfg, nil)
	go r.fin.loop()
	return r, logs
}

// An ack whose reply was lost, and whose retry finds the job gone (the
// first try deleted it), is confirmed: OnSuccess runs, and no line says
// the store refused it. Its hook never ran, and an INFO line blamed a
// lost lease or a vanished job.
func TestAckWhoseReplyWasLostIsConfirmed(t *testing.T) {
	st := &ackAnswers{answers: []string{"lost", "gone"}}
	r, logs := hookWorker(st)
	t.Cleanup(r.fin.close)
	r.fin.add(running(r, "q", "a"))
	if h := nextHook(t, r, logs); h.rec.ID != "a" || h.o != store.OutcomeAck {
		t.Fatalf("confirmed %s of %q, want the ack of a", h.o, h.rec.ID)
	}
	if out := logs.String(); strings.Contains(out, "already gone") || strings.Contains(out, "refused") {
		t.Fatalf("the retried ack was logged as refused:\n%s", out)
	}
}

// An ack whose first try finds its job gone was not applied by this
// worker (another acked it after this one's lease ran out, or it was
// deleted): no hook runs for it, and a line says so.
func TestAckOfAJobAlreadyGoneIsNotConfirmed(t *testing.T) {
	st := &ackAnswers{answers: []string{"gone", "ok"}}
	r, logs := hookWorker(st)
	t.Cleanup(r.fin.close)
	r.fin.add(running(r, "q", "a"))
	testutil.EventuallyTrue(t, testutil.Wait, "the line saying the acked job is gone", func() bool {
		return strings.Contains(logs.String(), "acked job already gone")
	})
	r.fin.add(running(r, "q", "b"))
	// Hooks run in the order outcomes were confirmed: a's would come first.
	if h := nextHook(t, r, logs); h.rec.ID != "b" {
		t.Fatalf("confirmed the ack of %q first, want b's alone (a's job was gone on the first try)", h.rec.ID)
	}
}
