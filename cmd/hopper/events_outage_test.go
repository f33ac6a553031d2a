package main

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// flakyEvents is a store whose event reads fail while down is set, as
// redisstore's do while Redis is down.
type flakyEvents struct {
	hopper.Store
	down atomic.Bool
	// subscribeFails counts the failed reads that wait for events (a
	// subscription's, not a look at a stream's end).
	subscribeFails atomic.Int64
}

func (f *flakyEvents) Unwrap() store.Store { return f.Store }

func (f *flakyEvents) ReadEvents(ctx context.Context, from map[string]string, max int, block time.Duration) ([]store.Event, map[string]string, []string, error) {
	if f.down.Load() {
		if block > 0 {
			f.subscribeFails.Add(1)
		}
		return nil, nil, nil, errors.New("redisstore: read events: dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	return f.Store.(store.EventReader).ReadEvents(ctx, from, max, block)
}

// TestEventsOutageSaid: while the store fails, "hopper events" says once
// on stderr that following is interrupted and retried, whatever the
// retries, then that it resumed, and prints the events written meanwhile.
// It said nothing while Redis was down.
func TestEventsOutageSaid(t *testing.T) {
	mem := memstore.New(nil)
	flaky := &flakyEvents{Store: mem}
	var stdout, stderr syncBuffer
	a := &app{stdout: &stdout, stderr: &stderr, open: func(context.Context, *storeFlags) (hopper.Store, func(), error) {
		return flaky, func() {}, nil
	}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() { done <- run(ctx, a, []string{"events", "--queue", "default"}) }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if !testutil.Poll(testutil.Wait, cond) {
			cancel()
			<-done
			t.Fatalf("waiting for %s:\nstdout:\n%s\nstderr:\n%s", what, stdout.String(), stderr.String())
		}
	}
	client := hopper.NewClient(mem, nil)
	enqueue := func() string {
		t.Helper()
		info, err := hopper.Enqueue(ctx, client, emailArgs{To: "x@example.com"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	printed := func(id string) func() bool {
		return func() bool { return strings.Contains(stdout.String(), "enqueued   "+id) }
	}

	waitFor("following", func() bool { return strings.Contains(stderr.String(), "following default (interrupt to stop)") })
	first := enqueue()
	waitFor("the first event", printed(first))

	flaky.down.Store(true)
	during := enqueue() // wakes a read in flight, if one is
	waitFor("the interruption said", func() bool { return strings.Contains(stderr.String(), "is interrupted") })
	waitFor("three failed reads", func() bool { return flaky.subscribeFails.Load() >= 3 })
	after := enqueue()

	flaky.down.Store(false)
	waitFor("the events written meanwhile", func() bool { return printed(during)() && printed(after)() })
	waitFor("the resumption said", func() bool { return strings.Contains(stderr.String(), "resumed") })
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	errText := stderr.String()
	interrupted := "hopper events: following default is interrupted: redisstore: read events: dial tcp 127.0.0.1:6379: connect: connection refused; retrying until the store answers\n"
	resumed := "hopper events: resumed following default\n"
	if strings.Count(errText, interrupted) != 1 || strings.Count(errText, resumed) != 1 || strings.Index(errText, interrupted) > strings.Index(errText, resumed) {
		t.Errorf("stderr after %d failed reads:\n%s\nwant once %q, then once %q", flaky.subscribeFails.Load(), errText, interrupted, resumed)
	}
}

// TestEventsCountSaysWhatEndsIt: with --count, "following" says the count
// ends it, not an interrupt.
func TestEventsCountSaysWhatEndsIt(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		if _, _, _, err := c.store.(store.EventReader).ReadEvents(t.Context(), map[string]string{"default": hopper.FromNow}, 1, 0); err != nil {
			t.Fatal(err)
		}
		ids := seed(t, c.store)
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--count", "1"}, "following default until 1 event is printed\n"},
			{[]string{"--count", "2"}, "following default until 2 events are printed\n"},
			{[]string{"--count", "1", "--job", ids.garbage}, "following default until 1 event of job " + ids.garbage + " is printed\n"},
		} {
			r := c.run(t, append([]string{"events", "--queue", "default", "--from", "start"}, tc.args...)...)
			wantCode(t, r, 0, strings.Join(tc.args, " "))
			if r.stderr != tc.want {
				t.Errorf("events %s: stderr %q, want %q", strings.Join(tc.args, " "), r.stderr, tc.want)
			}
		}
	})
}
