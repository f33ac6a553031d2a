package dashboard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// frozenEvents is a store whose event reads can be frozen, as a Redis
// under CLIENT PAUSE: a read started while frozen waits until thawed.
type frozenEvents struct {
	hopper.Store
	mu      sync.Mutex
	thaw    chan struct{} // non-nil while frozen
	stuck   chan struct{} // receives when a read waits on thaw
	succeed int           // reads that returned without error
}

func (f *frozenEvents) Unwrap() store.Store { return f.Store }

func (f *frozenEvents) ReadEvents(ctx context.Context, from map[string]string, max int, block time.Duration) ([]store.Event, map[string]string, []string, error) {
	f.mu.Lock()
	thaw := f.thaw
	f.mu.Unlock()
	if thaw != nil {
		select {
		case f.stuck <- struct{}{}:
		default: // another read said so already
		}
		select {
		case <-thaw:
		case <-ctx.Done():
			return nil, nil, nil, ctx.Err()
		}
	}
	evs, next, lost, err := f.Store.(store.EventReader).ReadEvents(ctx, from, max, block)
	if err == nil {
		f.mu.Lock()
		f.succeed++
		f.mu.Unlock()
	}
	return evs, next, lost, err
}

func (f *frozenEvents) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.thaw = make(chan struct{})
}

func (f *frozenEvents) unfreeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.thaw)
	f.thaw = nil
}

// nextAlive reads the stream up to its next "alive" message and returns
// the message's ID ("" without one).
func (s *sse) nextAlive() string {
	s.t.Helper()
	id := ""
	for {
		line, ok := s.line()
		if !ok {
			s.t.Fatalf("the event stream ended before an alive message: %v", s.err)
		}
		switch {
		case line == "":
			id = ""
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case line == "event: alive":
			return id
		}
	}
}

// The page calls itself live on the feed's "alive" messages: one after
// every store read that succeeded, at least every refresh period when
// nothing happens, and none while the store does not answer.
func TestEventFeedAliveMeansTheStoreAnswered(t *testing.T) {
	f := &frozenEvents{Store: newMem(), stuck: make(chan struct{}, 1)}
	srv := httptest.NewServer(newHandler(f, &dashboard.Config{RefreshInterval: 20 * time.Millisecond}))
	t.Cleanup(srv.Close)
	feed := openEvents(t, srv, "/api/events?queue=default", "")

	// An idle queue: alive messages come every refresh period (with the old
	// 15 s wait the third would not come within feedWait).
	seen := 0
	for range 3 {
		feed.nextAlive()
		seen++
	}

	// Frozen: once a read is stuck, the stream has said alive once per read
	// that returned, and says nothing more until the store answers again.
	f.freeze()
	<-f.stuck
	f.mu.Lock()
	answered := f.succeed
	f.mu.Unlock()
	for seen < answered {
		feed.nextAlive()
		seen++
	}
	select {
	case line := <-feed.lines:
		if strings.HasPrefix(line, "event: alive") {
			t.Fatalf("the feed said alive while its store read was stuck")
		}
	default:
	}
	f.unfreeze()
	feed.nextAlive()

	// A browser that reconnects (Last-Event-ID) while the store is frozen
	// gets an open stream (its first comment) but no alive message until a
	// read succeeds.
	if _, err := hopper.Enqueue(t.Context(), hopper.NewClient(f, nil), dashtest.EmailArgs{To: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	pos := feed.next().pos
	f.freeze()
	again := openEvents(t, srv, "/api/events?queue=default", pos)
	<-f.stuck
	select {
	case line := <-again.lines:
		if strings.HasPrefix(line, "event: alive") {
			t.Fatalf("a resumed feed said alive before reading the store")
		}
	default:
	}
	f.unfreeze()
	again.nextAlive()
}

// failingEvents is a store whose event reads fail with a store's words.
type failingEvents struct{ hopper.Store }

func (f failingEvents) Unwrap() store.Store { return f.Store }

const storeWords = "ERR Wrong number of args calling Redis command from script secret-internals"

func (f failingEvents) ReadEvents(context.Context, map[string]string, int, time.Duration) ([]store.Event, map[string]string, []string, error) {
	return nil, nil, nil, errors.New(storeWords)
}

// TestEventFeedHidesStoreErrors: a failing event read answers in words,
// without the store's error text (which goes to the log).
func TestEventFeedHidesStoreErrors(t *testing.T) {
	r := get(t, newHandler(failingEvents{newMem()}, nil), "/api/events?queue=default")
	if r.Code != http.StatusServiceUnavailable || strings.Contains(r.Body, "secret-internals") || !strings.Contains(r.Body, "events") {
		t.Errorf("failing feed: %d %q, want 503 in words without the store's text", r.Code, r.Body)
	}
}
