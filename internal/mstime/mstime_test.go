package mstime

import (
	"math"
	"testing"
	"time"
)

func TestRoundsUp(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{{-time.Second, 0}, {0, 0}, {time.Nanosecond, 1}, {time.Millisecond, 1}, {time.Millisecond + 1, 2}, {1500 * time.Microsecond, 2}, {math.MaxInt64, math.MaxInt64/int64(time.Millisecond) + 1}} {
		if got := Ceil(tc.d); got != tc.want {
			t.Errorf("Ceil(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	at := time.UnixMilli(1000)
	if got := CeilUnix(at); got != 1000 {
		t.Errorf("CeilUnix of a whole millisecond = %d, want 1000", got)
	}
	if got := CeilUnix(at.Add(time.Nanosecond)); got != 1001 {
		t.Errorf("CeilUnix one nanosecond past = %d, want 1001 (never earlier than asked)", got)
	}
}

func TestMicroRoundsUp(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{{-time.Second, 0}, {0, 0}, {time.Nanosecond, 1}, {time.Microsecond, 1}, {time.Microsecond + 1, 2}, {1500 * time.Nanosecond, 2}, {2 * time.Second, 2000000}} {
		if got := CeilMicro(tc.d); got != tc.want {
			t.Errorf("CeilMicro(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	at := time.UnixMicro(1_700_000_000_000_123)
	if got := CeilUnixMicro(at); got != 1_700_000_000_000_123 {
		t.Errorf("CeilUnixMicro of a whole microsecond = %d, want 1700000000000123", got)
	}
	if got := CeilUnixMicro(at.Add(time.Nanosecond)); got != 1_700_000_000_000_124 {
		t.Errorf("CeilUnixMicro one nanosecond past = %d, want 1700000000000124 (never earlier than asked)", got)
	}
}
