package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hopperq/hopper"
)

// The demo's job kinds: a realistic mix of fast and slow work, some of which
// fails and is retried, some of which dies into garbage.

// SendEmail is fast and fails now and then (a flaky SMTP server).
type SendEmail struct {
	To      string `msgpack:"to"`
	Subject string `msgpack:"subject"`
}

// Kind implements hopper.Args.
func (SendEmail) Kind() string { return "send_email" }

// ResizeImage is slow.
type ResizeImage struct {
	URL   string `msgpack:"url"`
	Width int    `msgpack:"width"`
}

// Kind implements hopper.Args.
func (ResizeImage) Kind() string { return "resize_image" }

// ChargeCard is critical; a declined card is a permanent failure.
type ChargeCard struct {
	Customer string `msgpack:"customer"`
	Cents    int    `msgpack:"cents"`
}

// Kind implements hopper.Args.
func (ChargeCard) Kind() string { return "charge_card" }

// SendReminder is enqueued with a delay.
type SendReminder struct {
	User string `msgpack:"user"`
}

// Kind implements hopper.Args.
func (SendReminder) Kind() string { return "send_reminder" }

// BuildReport panics now and then (a bug), showing panics become retries.
type BuildReport struct {
	Month string `msgpack:"month"`
}

// Kind implements hopper.Args.
func (BuildReport) Kind() string { return "build_report" }

var errDeclined = errors.New("card declined")

// registerDemoHandlers registers a handler for every demo kind.
func registerDemoHandlers(w *hopper.Worker) {
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[SendEmail]) error {
		work(ctx, 2*time.Millisecond, 10*time.Millisecond)
		if rand.IntN(10) == 0 {
			return fmt.Errorf("smtp: 421 try again later (to %s)", j.Args.To)
		}
		return nil
	})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[ResizeImage]) error {
		work(ctx, 20*time.Millisecond, 200*time.Millisecond)
		return ctx.Err()
	})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[ChargeCard]) error {
		work(ctx, 5*time.Millisecond, 30*time.Millisecond)
		if rand.IntN(20) == 0 {
			return hopper.Permanent(fmt.Errorf("charging %s %d cents: %w", j.Args.Customer, j.Args.Cents, errDeclined))
		}
		return nil
	})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[SendReminder]) error {
		work(ctx, time.Millisecond, 5*time.Millisecond)
		return nil
	})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[BuildReport]) error {
		work(ctx, 10*time.Millisecond, 50*time.Millisecond)
		if rand.IntN(4) == 0 {
			var m map[string]int
			m[j.Args.Month]++ // a real bug: assignment to a nil map panics
		}
		return nil
	})
}

// work simulates a handler's work for a random time in [lo, hi).
func work(ctx context.Context, lo, hi time.Duration) {
	t := time.NewTimer(lo + rand.N(hi-lo))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// enqueueDemoJob enqueues one job of a random kind.
func enqueueDemoJob(ctx context.Context, c *hopper.Client, n int) error {
	var err error
	switch p := rand.IntN(100); {
	case p < 40:
		_, err = hopper.Enqueue(ctx, c, SendEmail{To: fmt.Sprintf("user%d@example.com", n), Subject: "Welcome"}, nil)
	case p < 55:
		_, err = hopper.Enqueue(ctx, c, ResizeImage{URL: fmt.Sprintf("https://img.example.com/%d.png", n), Width: 320}, &hopper.EnqueueOpts{Queue: "low"})
	case p < 75:
		_, err = hopper.Enqueue(ctx, c, ChargeCard{Customer: fmt.Sprintf("cus_%d", n), Cents: 100 + rand.IntN(10000)}, &hopper.EnqueueOpts{Queue: "critical"})
	case p < 90:
		_, err = hopper.Enqueue(ctx, c, SendReminder{User: fmt.Sprintf("user%d", n)}, &hopper.EnqueueOpts{Delay: time.Duration(2+rand.IntN(8)) * time.Second})
	default:
		_, err = hopper.Enqueue(ctx, c, BuildReport{Month: "2026-11"}, &hopper.EnqueueOpts{Queue: "low", MaxRetries: 2})
	}
	return err
}
