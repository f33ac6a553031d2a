package dashboard_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hopperq/hopper/dashboard"
)

// TestBadInputDecodeArgs: the dashboard and the CLI show args and results
// that may be anything; hostile bytes give an error (shown with a hex dump)
// and allocate little, never a crash.
func TestBadInputDecodeArgs(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"map length bomb", []byte{0xdf, 0xff, 0xff, 0xff, 0xff}, "claims more than the input holds"},
		{"array length bomb", []byte{0xdd, 0xff, 0xff, 0xff, 0xff}, "claims more than the input holds"},
		{"string length bomb", []byte{0xdb, 0xff, 0xff, 0xff, 0xff}, "claims more than the input holds"},
		{"extension length bomb", []byte{0xc9, 0xff, 0xff, 0xff, 0xff, 0x01}, "claims more than the input holds"},
		{"nesting bomb", bytes.Repeat([]byte{0x91}, 1_000_000), "nested deeper than 64"},
		{"trailing bytes", []byte{0x01, 0x02}, "trailing bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = dashboard.DecodeArgs(c.b) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("DecodeArgs: %v, want an error containing %q", err, c.want)
			}
			if n > 64<<10 {
				t.Errorf("DecodeArgs of %d hostile bytes allocated %d bytes, want at most 64 KiB", len(c.b), n)
			}
		})
	}
}
