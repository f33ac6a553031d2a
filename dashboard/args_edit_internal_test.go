package dashboard

import (
	"encoding/json"
	"math"
	"testing"
)

// TestWholeInt64: a whole number in int64's range is an int64 however it
// is written, read exactly; others stay floats, and a huge exponent is
// not computed out.
func TestWholeInt64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"100", 100, true}, {"100.0", 100, true}, {"1e2", 100, true}, {"1.0E+2", 100, true}, {"-0.0", 0, true},
		{"9223372036854775807.0", math.MaxInt64, true}, {"-9223372036854775808.0", math.MinInt64, true},
		{"9007199254740993.0", 9007199254740993, true},
		{"9223372036854775808.0", 0, false}, {"1.5", 0, false}, {"100.0000000000000000001", 0, false},
		{"1e-999999", 0, false}, {"1e999", 0, false}, {"0e-401", 0, false},
	} {
		got, ok := wholeInt64(json.Number(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("wholeInt64(%s) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
