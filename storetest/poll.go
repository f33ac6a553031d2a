package storetest

import (
	"errors"
	"testing"
	"time"
)

// eventually polls cond until it returns nil, failing the test with cond's
// last error when timeout passes first. cond describes what it is waiting
// for and what it saw in that error.
func eventually(t *testing.T, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v: %v", timeout, err)
		}
		timer := time.NewTimer(pause)
		select {
		case <-t.Context().Done():
			timer.Stop()
			t.Fatalf("test context done while waiting: %v", err)
		case <-timer.C:
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// poll calls cond every 10ms until it returns true or timeout passes, and
// reports whether it did.
func poll(t *testing.T, timeout time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return false
		case <-t.Context().Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// within reports whether got is within tol of want.
func within(got, want time.Time, tol time.Duration) bool {
	d := got.Sub(want)
	return d >= -tol && d <= tol
}

// requireNear fails unless got is within tol of want.
func requireNear(t *testing.T, what string, got, want time.Time, tol time.Duration) {
	t.Helper()
	if !within(got, want, tol) {
		t.Fatalf("%s = %v, want %v (±%v); off by %v", what, got, want, tol, got.Sub(want))
	}
}

// requireNow fails unless the store time got lies between before and after
// taken on the test's clock, give or take clockSlack.
func requireNow(t *testing.T, what string, got, before, after time.Time) {
	t.Helper()
	if got.IsZero() {
		t.Fatalf("%s is zero, want the store's current time", what)
	}
	if got.Before(before.Add(-clockSlack)) || got.After(after.Add(clockSlack)) {
		t.Fatalf("%s = %v, want between %v and %v (±%v)", what, got, before, after, clockSlack)
	}
}

// requireErrIs fails unless errors.Is(err, target).
func requireErrIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}
