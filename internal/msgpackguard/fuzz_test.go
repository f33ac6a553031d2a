package msgpackguard_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/msgpackguard"
)

// FuzzCheck: Check never panics nor allocates on success; what it accepts
// is exactly one value as msgpack v5 reads it, and msgpack v5 decodes it
// into interface{} allocating in proportion to its size.
func FuzzCheck(f *testing.F) {
	for _, b := range wellFormed(f) {
		if len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xdf, 0x00, 0x00, 0x00, 0x02, 0x91, 0x91, 0x90})
	f.Add([]byte{0xc9, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := msgpackguard.Check(b); err != nil {
			return
		}
		// Averaged over 100 runs (rounded down): a stray allocation of
		// another goroutine during one run failed the seed under -race
		// (an allocation of Check itself is one a run).
		if n := testing.AllocsPerRun(100, func() { _ = msgpackguard.Check(b) }); n != 0 {
			t.Fatalf("Check allocated %v times accepting % x", n, b)
		}
		r := bytes.NewReader(b)
		if err := msgpack.NewDecoder(r).Skip(); err != nil || r.Len() != 0 {
			t.Fatalf("Check accepted % x, but msgpack v5 skips it with %v leaving %d bytes", b, err, r.Len())
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		func() {
			defer func() { _ = recover() }() // panics are the callers' concern; size is ours
			var v any
			_ = msgpack.Unmarshal(b, &v)
		}()
		runtime.ReadMemStats(&after)
		if n, limit := after.TotalAlloc-before.TotalAlloc, 64<<10+1024*uint64(len(b)); n > limit {
			t.Fatalf("decoding %d checked bytes into interface{} allocated %d, more than %d", len(b), n, limit)
		}
	})
}
