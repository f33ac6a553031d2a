package hopper_test

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// failingReader is a store whose first ReadEvents takes a position for
// FromNow and then fails, as a Redis restarting does between the two
// steps of a read; it records the positions each read was asked from.
type failingReader struct {
	*memstore.Store
	mu    sync.Mutex
	asked []map[string]string
}

func (s *failingReader) ReadEvents(ctx context.Context, from map[string]string, max int, block time.Duration) ([]store.Event, map[string]string, []string, error) {
	s.mu.Lock()
	s.asked = append(s.asked, maps.Clone(from))
	n := len(s.asked)
	s.mu.Unlock()
	if n == 1 {
		return nil, map[string]string{"q": "7-0"}, nil, errors.New("connection refused")
	}
	return []store.Event{{Queue: "q", Pos: "8-0"}}, map[string]string{"q": "8-0"}, nil, nil
}

// TestSubscribeKeepsAPositionTakenBeforeAnError: a subscription from now
// whose read failed after the store took the position of "now" reads
// again from that position; it read from a new now, and the events
// written in between were skipped with no ErrEventsLost.
func TestSubscribeKeepsAPositionTakenBeforeAnError(t *testing.T) {
	st := &failingReader{Store: memstore.New(nil)}
	c := hopper.NewClient(st, nil)
	for ev, err := range c.Subscribe(t.Context(), []string{"q"}, nil) {
		if err != nil {
			continue // the failed read's error, then a read again
		}
		if ev.Pos != "8-0" {
			t.Fatalf("event %+v, want the fake's", ev)
		}
		break
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.asked) != 2 || st.asked[0]["q"] != hopper.FromNow || st.asked[1]["q"] != "7-0" {
		t.Fatalf("reads asked from %v; want FromNow, then 7-0 (the position the failed read took)", st.asked)
	}
}
