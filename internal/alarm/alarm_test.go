package alarm

import (
	"testing"
	"time"
)

// TestSetRunsNoEarlier: a setting runs its function once, not before its
// time.
func TestSetRunsNoEarlier(t *testing.T) {
	a := New()
	defer a.Close()
	for _, d := range []time.Duration{50 * time.Microsecond, 700 * time.Microsecond, 3 * time.Millisecond} {
		ran := make(chan time.Time, 2)
		start := time.Now()
		a.Set(d, func() { ran <- time.Now() })
		at := <-ran
		if got := at.Sub(start); got < d {
			t.Fatalf("set for %v, ran after %v", d, got)
		}
		select {
		case <-ran:
			t.Fatalf("set for %v, ran twice", d)
		default:
		}
	}
}

// TestStop: a stopped setting does not run.
func TestStop(t *testing.T) {
	a := New()
	defer a.Close()
	a.Set(time.Millisecond, func() { t.Error("a stopped setting ran") })()
	afterOnOther(t, 3*time.Millisecond)
}

// TestReplace: a later Set replaces an earlier one, and the earlier one's
// stop leaves the later alone.
func TestReplace(t *testing.T) {
	a := New()
	defer a.Close()
	stopOld := a.Set(time.Millisecond, func() { t.Error("a replaced setting ran") })
	ran := make(chan struct{})
	a.Set(2*time.Millisecond, func() { close(ran) })
	stopOld()
	<-ran
	afterOnOther(t, 2*time.Millisecond)
}

// afterOnOther returns once d has passed, by an Alarm of its own.
func afterOnOther(t *testing.T, d time.Duration) {
	t.Helper()
	b := New()
	defer b.Close()
	ran := make(chan struct{})
	b.Set(d, func() { close(ran) })
	<-ran
}

// TestPortableClock runs the same settings on the time.Timer clock that
// platforms without a timerfd use.
func TestPortableClock(t *testing.T) {
	a := &Alarm{}
	a.clock = &timerClock{fire: a.fire}
	defer a.Close()
	ran := make(chan time.Time, 1)
	start := time.Now()
	stop := a.Set(time.Hour, func() { t.Error("a stopped setting ran") })
	stop()
	a.Set(time.Millisecond, func() { ran <- time.Now() })
	if got := (<-ran).Sub(start); got < time.Millisecond {
		t.Fatalf("set for 1ms, ran after %v", got)
	}
}

// TestClose: what was set when the Alarm closed does not run.
func TestClose(t *testing.T) {
	a := New()
	a.Set(time.Millisecond, func() { t.Error("ran after Close") })
	a.Close()
	afterOnOther(t, 3*time.Millisecond)
}
