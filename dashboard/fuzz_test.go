package dashboard_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/hopperq/hopper/dashboard"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FuzzDecodeArgs feeds DecodeArgs (the dashboard and the CLI show every
// job's args and result with it) arbitrary bytes: no panic, allocation in
// proportion to the input, a value JSON can encode, and a round trip: the
// decoded value, encoded with msgpack and decoded again, shows the same.
func FuzzDecodeArgs(f *testing.F) {
	f.Add(mustMarshal(f, map[string]any{"a": []any{1, "x", nil, 2.5, map[int]bool{1: true}}}))
	f.Add(mustMarshal(f, map[string]any{"to": "ü@例え.jp", "t": time.Unix(1700000000, 5), "b": []byte{0, 0xff}}))
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xdb, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xc9, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{0xc7, 0x05, 0xff, 1, 2, 3, 4, 5})
	f.Add(append(bytes.Repeat([]byte{0x91}, 70), 0x01))
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		var err error
		n := allocated(func() { v, err = dashboard.DecodeArgs(b) })
		if limit := 64<<10 + 1024*uint64(len(b)); n > limit {
			t.Fatalf("DecodeArgs of %d bytes allocated %d bytes, more than %d", len(b), n, limit)
		}
		if err != nil {
			return
		}
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("DecodeArgs(% x) = %#v, which JSON cannot encode: %v", b, v, err)
		}
		again, err := dashboard.DecodeArgs(mustMarshal(t, v))
		if err != nil {
			t.Fatalf("re-encoded %#v does not decode: %v", v, err)
		}
		if text2, _ := json.Marshal(again); !bytes.Equal(text, text2) {
			t.Fatalf("round trip changed what is shown:\n%s\n%s", text, text2)
		}
		// Redaction copes with whatever decodes.
		dashboard.DefaultRedact("k", v)
	})
}
