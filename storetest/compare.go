package storetest

import (
	"errors"
	"testing"
	"time"
)

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

// requireErrText fails unless err reads as want: the errors worded once
// in package store, which every store returns alike.
func requireErrText(t *testing.T, what string, err, want error) {
	t.Helper()
	if err == nil || err.Error() != want.Error() {
		t.Errorf("%s: error %q, want %q (as every store words it)", what, err, want)
	}
}
