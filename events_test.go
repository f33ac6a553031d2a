package hopper_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hopperq/hopper"
)

// collect reads events from seq until it has n events (yielded errors are
// collected apart) and then stops the iterator.
func collect(t *testing.T, seq func(func(hopper.Event, error) bool), n int) (evs []hopper.Event, errs []error) {
	t.Helper()
	seq(func(ev hopper.Event, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return len(errs) < 10
		}
		evs = append(evs, ev)
		return len(evs) < n
	})
	return evs, errs
}

func TestSubscribeSeesEveryStepOfAJob(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return nil })
	info, err := hopper.Enqueue(t.Context(), c, Echo{N: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	evs, errs := collect(t, c.Subscribe(t.Context(), []string{"default"}, &hopper.SubscribeOpts{Start: hopper.FromStart}), 3)
	if len(errs) > 0 {
		t.Fatalf("Subscribe yielded errors %v", errs)
	}
	types := []hopper.EventType{hopper.EventEnqueued, hopper.EventStarted, hopper.EventSucceeded}
	for i, ev := range evs {
		if ev.Type != types[i] || ev.ID != info.ID || ev.Kind != "echo" {
			t.Fatalf("event %d: %s of %q (%s), want %s of %q (echo)", i, ev.Type, ev.ID, ev.Kind, types[i], info.ID)
		}
	}
	if evs[1].Worker == "" || evs[1].Attempt != 1 {
		t.Fatalf("started event: worker %q, attempt %d; want the worker's ID and attempt 1", evs[1].Worker, evs[1].Attempt)
	}
}

func TestSubscribeResumesFromAPosition(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	for i := range 5 {
		if _, err := hopper.Enqueue(t.Context(), c, Echo{N: i}, nil); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := collect(t, c.Subscribe(t.Context(), []string{"default"}, &hopper.SubscribeOpts{Start: hopper.FromStart}), 5)
	// A subscriber that handled two events and stopped resumes after the
	// second: it sees the other three, once.
	rest, errs := collect(t, c.Subscribe(t.Context(), []string{"default"}, &hopper.SubscribeOpts{
		From: map[string]string{"default": all[1].Pos},
	}), 3)
	if len(errs) > 0 || len(rest) != 3 {
		t.Fatalf("resumed subscription: %d events, errors %v; want 3", len(rest), errs)
	}
	for i, ev := range rest {
		if ev.ID != all[i+2].ID {
			t.Fatalf("resumed event %d is job %q, want %q", i, ev.ID, all[i+2].ID)
		}
	}
}

func TestSubscribeSaysWhenEventsWereLost(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	if err := hopper.NewInspector(s).SetQueueConfig(t.Context(), "default", hopper.QueueConfig{EventsMaxLen: 2}); err != nil {
		t.Fatal(err)
	}
	first, err := hopper.Enqueue(t.Context(), c, Echo{N: 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := collect(t, c.Subscribe(t.Context(), []string{"default"}, &hopper.SubscribeOpts{Start: hopper.FromStart}), 1)
	if evs[0].ID != first.ID {
		t.Fatalf("first event of job %q, want %q", evs[0].ID, first.ID)
	}
	var last *hopper.JobInfo
	for i := range 5 {
		if last, err = hopper.Enqueue(t.Context(), c, Echo{N: i + 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []hopper.Event
	var lost error
	c.Subscribe(t.Context(), []string{"default"}, &hopper.SubscribeOpts{From: map[string]string{"default": evs[0].Pos}})(
		func(ev hopper.Event, err error) bool {
			if err != nil {
				lost = err
				return true
			}
			got = append(got, ev)
			return ev.ID != last.ID
		})
	if !errors.Is(lost, hopper.ErrEventsLost) {
		t.Fatalf("subscription behind a stream of 2 entries after 5 enqueues: error %v, want ErrEventsLost", lost)
	}
	if len(got) == 0 || len(got) >= 5 {
		t.Fatalf("after the loss: %d events, want the 1 or 2 kept", len(got))
	}
}

func TestSubscribeRejectsBadInput(t *testing.T) {
	c := hopper.NewClient(newStore(), nil)
	for _, tc := range []struct {
		queues []string
		opts   *hopper.SubscribeOpts
		want   error
	}{
		{nil, nil, hopper.ErrInvalidConfig},
		{[]string{"bad queue"}, nil, hopper.ErrInvalidQueue},
		{[]string{"default"}, &hopper.SubscribeOpts{Start: "soon"}, hopper.ErrInvalidConfig},
		{[]string{"default"}, &hopper.SubscribeOpts{From: map[string]string{"default": "x/y"}}, hopper.ErrInvalidConfig},
	} {
		_, errs := collect(t, c.Subscribe(t.Context(), tc.queues, tc.opts), 1)
		if len(errs) != 1 || !errors.Is(errs[0], tc.want) {
			t.Errorf("Subscribe(%v, %+v): errors %v, want one wrapping %v", tc.queues, tc.opts, errs, tc.want)
		}
	}
	// A store that keeps no events says so.
	_, errs := collect(t, hopper.NewClient(engineOnly{newStore()}, nil).Subscribe(t.Context(), []string{"default"}, nil), 1)
	if len(errs) != 1 || !errors.Is(errs[0], hopper.ErrNotSupported) {
		t.Errorf("Subscribe on a store without events: %v, want ErrNotSupported", errs)
	}
}
