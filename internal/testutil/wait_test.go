package testutil

import (
	"errors"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	n := 0
	if !Poll(time.Second, func() bool { n++; return n == 3 }) {
		t.Fatalf("Poll gave up on a condition that held at the third try")
	}
	if Poll(10*time.Millisecond, func() bool { return false }) {
		t.Fatal("Poll reported a condition that never held")
	}
	want := errors.New("still 7")
	if err := poll(10*time.Millisecond, func() error { return want }); err != want {
		t.Fatalf("poll returned %v, want the condition's last error", err)
	}
}
