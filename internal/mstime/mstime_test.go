package mstime

import (
	"math"
	"testing"
	"time"
)

func TestRoundsUp(t *testing.T) {
	for _, u := range []struct {
		name     string
		unit     time.Duration
		ceil     func(time.Duration) int64
		ceilUnix func(time.Time) int64
	}{
		{"ms", time.Millisecond, Ceil, CeilUnix},
		{"µs", time.Microsecond, CeilMicro, CeilUnixMicro},
	} {
		for _, tc := range []struct {
			d    time.Duration
			want int64
		}{{-time.Second, 0}, {0, 0}, {time.Nanosecond, 1}, {u.unit, 1}, {u.unit + 1, 2}, {u.unit * 3 / 2, 2}, {math.MaxInt64, math.MaxInt64/int64(u.unit) + 1}} {
			if got := u.ceil(tc.d); got != tc.want {
				t.Errorf("%s: ceil(%v) = %d, want %d", u.name, tc.d, got, tc.want)
			}
		}
		at := time.Unix(1_700_000_000, 0).Add(123 * u.unit)
		whole := at.UnixNano() / int64(u.unit)
		if got := u.ceilUnix(at); got != whole {
			t.Errorf("%s: Unix time of a whole unit = %d, want %d", u.name, got, whole)
		}
		if got := u.ceilUnix(at.Add(time.Nanosecond)); got != whole+1 {
			t.Errorf("%s: Unix time one nanosecond past = %d, want %d (never earlier than asked)", u.name, got, whole+1)
		}
	}
}
