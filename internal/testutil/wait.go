package testutil

import (
	"fmt"
	"testing"
	"time"
)

// Wait is how long Eventually waits unless told otherwise: generous, so
// that a slow machine under -race never fails a correct test. It bounds a
// wait; it asserts nothing about speed.
const Wait = 10 * time.Second

// Eventually polls cond until it returns nil and fails t with cond's last
// error once timeout has passed. The polling interval starts at a
// millisecond and doubles to at most 50 ms; it is not a synchronisation.
func Eventually(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	if err := poll(timeout, cond); err != nil {
		t.Fatalf("after %v: %v", timeout, err)
	}
}

// EventuallyTrue is Eventually for a condition with no error of its own:
// what names what the test waits for.
func EventuallyTrue(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Eventually(t, timeout, func() error {
		if cond() {
			return nil
		}
		return fmt.Errorf("timed out waiting for %s", what)
	})
}

// Poll reports whether cond held within timeout, polling as Eventually
// does, for callers whose own assertions say what is wrong.
func Poll(timeout time.Duration, cond func() bool) bool {
	return poll(timeout, func() error {
		if cond() {
			return nil
		}
		return errFalse
	}) == nil
}

var errFalse = fmt.Errorf("condition false")

func poll(timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause) // polling interval, not synchronisation
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Receive returns the next value from ch, failing t after timeout.
func Receive[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
		panic("unreachable")
	}
}
