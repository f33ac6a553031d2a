package msgpackguard_test

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/msgpackguard"
)

// wellFormed are values msgpack v5 encodes; Check must accept every one.
func wellFormed(t testing.TB) [][]byte {
	vals := []any{
		nil, true, false, 0, 1, -1, -33, 127, 128, 255, 256, 65535, 65536, math.MaxInt64, math.MinInt64,
		uint64(math.MaxUint64), float32(1.5), 2.25, math.NaN(), "", "héllo", strings.Repeat("x", 31),
		strings.Repeat("x", 32), strings.Repeat("y", 300), strings.Repeat("z", 70000),
		[]byte{}, []byte{1, 2, 3}, bytes.Repeat([]byte{7}, 300), bytes.Repeat([]byte{7}, 70000),
		[]int{}, []int{1, 2, 3}, make([]int, 20), make([]int8, 70000), map[string]int{}, map[string]int{"a": 1},
		map[string]any{"n": []any{1, "two", map[string]any{"three": 3.0}}}, make(map[int]bool, 20),
		time.Unix(0, 0), time.Unix(1700000000, 5), time.Unix(1<<40, 1).UTC(),
	}
	big := map[int]int{}
	for i := range 70000 {
		big[i] = i
	}
	vals = append(vals, big)
	var out [][]byte
	for _, v := range vals {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(%T): %v", v, err)
		}
		out = append(out, b)
	}
	// Extensions of every size class, as another encoder may write them.
	out = append(out,
		[]byte{0xd4, 1, 0}, []byte{0xd5, 1, 0, 0}, []byte{0xd8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		[]byte{0xc7, 2, 5, 'h', 'i'}, []byte{0xc8, 0, 1, 5, 'h'}, []byte{0xc9, 0, 0, 0, 0, 5})
	return out
}

func TestCheckAcceptsWellFormed(t *testing.T) {
	for _, b := range wellFormed(t) {
		if err := msgpackguard.Check(b); err != nil {
			t.Errorf("Check(% x...) = %v, want nil", b[:min(len(b), 16)], err)
		}
	}
}

func TestCheckNesting(t *testing.T) {
	nested := func(n int) []byte {
		return append(bytes.Repeat([]byte{0x91}, n), 0x01) // [[[...[1]...]]]
	}
	if err := msgpackguard.Check(nested(msgpackguard.MaxDepth)); err != nil {
		t.Errorf("%d nested arrays: %v, want nil", msgpackguard.MaxDepth, err)
	}
	if err := msgpackguard.Check(nested(msgpackguard.MaxDepth + 1)); !errors.Is(err, msgpackguard.ErrTooDeep) {
		t.Errorf("%d nested arrays: %v, want ErrTooDeep", msgpackguard.MaxDepth+1, err)
	}
	// A million levels: rejected quickly, without deep recursion.
	maps := bytes.Repeat([]byte{0x81, 0xa1, 'k'}, 1_000_000)
	if err := msgpackguard.Check(maps); !errors.Is(err, msgpackguard.ErrTooDeep) {
		t.Errorf("a million nested maps: %v, want ErrTooDeep", err)
	}
}

func TestCheckRejects(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, msgpackguard.ErrTruncated},
		{"array32 claiming 4G elements", []byte{0xdd, 0xff, 0xff, 0xff, 0xff}, msgpackguard.ErrTruncated},
		{"map32 claiming 4G pairs", []byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0xa0, 0xa0}, msgpackguard.ErrTruncated},
		{"map16 with half its pairs", []byte{0xde, 0x00, 0x02, 0x01, 0x01}, msgpackguard.ErrTruncated},
		{"str32 claiming 4 GB", []byte{0xdb, 0xff, 0xff, 0xff, 0xff, 'a'}, msgpackguard.ErrTruncated},
		{"bin32 claiming 4 GB", []byte{0xc6, 0xff, 0xff, 0xff, 0xff}, msgpackguard.ErrTruncated},
		{"ext32 claiming 4 GB", []byte{0xc9, 0xff, 0xff, 0xff, 0xff, 0x01}, msgpackguard.ErrTruncated},
		{"ext32 length at the 32-bit limit", []byte{0xc9, 0xff, 0xff, 0xff, 0xff}, msgpackguard.ErrTruncated},
		{"truncated length", []byte{0xdc, 0x00}, msgpackguard.ErrTruncated},
		{"truncated int64", []byte{0xd3, 0, 0, 0}, msgpackguard.ErrTruncated},
		{"array of fixarrays each claiming 15", []byte{0x93, 0x9f, 0x9f, 0x9f}, msgpackguard.ErrTruncated},
		{"never used byte", []byte{0xc1}, msgpackguard.ErrInvalid},
		{"two values", []byte{0x01, 0x02}, msgpackguard.ErrTrailing},
	}
	for _, c := range cases {
		if err := msgpackguard.Check(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: Check(% x) = %v, want %v", c.name, c.b, err, c.want)
		}
	}
}

// totalAlloc returns the bytes f allocates.
func totalAlloc(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// guardedUnmarshal is how hopper decodes msgpack from Redis: Check first.
func guardedUnmarshal(b []byte, v any) error {
	if err := msgpackguard.Check(b); err != nil {
		return err
	}
	return msgpack.Unmarshal(b, v)
}

// TestBombDefused shows the threat on a small scale and the guard removing
// it: five bytes that claim 4M elements make msgpack v5 allocate 32 MB for
// a []int64 (the same bytes claiming 4G elements would ask for 32 GB and
// kill the process), while Check rejects them allocating only its error (bounded here by 64 KiB, a thousandth of the unguarded cost).
func TestBombDefused(t *testing.T) {
	bomb := []byte{0xdd, 0x00, 0x40, 0x00, 0x00} // array32 of 4,194,304 elements, none present
	const claimed = 8 << 22

	var s []int64
	unguarded := totalAlloc(func() { _ = msgpack.Unmarshal(bomb, &s) })
	t.Logf("unguarded msgpack v5 allocated %d bytes for the 5-byte bomb", unguarded)
	if unguarded < claimed {
		t.Logf("msgpack v5 no longer trusts array lengths (allocated %d bytes); the guard stays as defence", unguarded)
	}
	var ss []int64
	var err error
	guarded := totalAlloc(func() { err = guardedUnmarshal(bomb, &ss) })
	if !errors.Is(err, msgpackguard.ErrTruncated) {
		t.Fatalf("guarded decode of the bomb: %v, want ErrTruncated", err)
	}
	if guarded > 64<<10 {
		t.Errorf("guarded decode of a 5-byte bomb allocated %d bytes, want at most 64 KiB (unguarded: %d)", guarded, unguarded)
	}

	// interface{} decoding: msgpack v5 makes []interface{} of the claimed
	// capacity, 16 bytes per element.
	var v any
	unguarded = totalAlloc(func() { _ = msgpack.Unmarshal(bomb, &v) })
	guarded = totalAlloc(func() { err = guardedUnmarshal(bomb, &v) })
	if err == nil || guarded > 64<<10 {
		t.Errorf("guarded interface decode: err %v, %d bytes allocated (unguarded %d), want an error and at most 64 KiB", err, guarded, unguarded)
	}
}

// TestAllocationProportional decodes bytes that pass Check into interface
// and slice types and bounds what msgpack v5 allocates by the input size:
// arrays of empty arrays, maps of empty maps, each element one byte.
func TestAllocationProportional(t *testing.T) {
	const n = 1 << 16
	inputs := map[string][]byte{
		"array of empty arrays": append([]byte{0xdd, 0, 1, 0, 0}, bytes.Repeat([]byte{0x90}, n)...),
		"map of nil values":     append([]byte{0xdf, 0, 0, 0x80, 0}, bytes.Repeat([]byte{0xa0, 0xc0}, n/2)...),
	}
	for name, b := range inputs {
		if err := msgpackguard.Check(b); err != nil {
			t.Fatalf("%s: Check: %v", name, err)
		}
		var v any
		var err error
		got := totalAlloc(func() { err = msgpack.Unmarshal(b, &v) })
		if err != nil {
			t.Fatalf("%s: Unmarshal: %v", name, err)
		}
		// []any per element is 16 bytes plus an empty slice header of 24
		// when boxed: well under 128 bytes per input byte.
		if limit := uint64(128 * len(b)); got > limit {
			t.Errorf("%s: decoding %d bytes allocated %d, want at most %d", name, len(b), got, limit)
		}
	}
}

func TestCheckDoesNotAllocate(t *testing.T) {
	b, _ := msgpack.Marshal(map[string]any{"a": []any{1, 2, "x", map[string]int{"b": 2}}, "t": time.Unix(5, 0)})
	if n := testing.AllocsPerRun(100, func() { _ = msgpackguard.Check(b) }); n != 0 {
		t.Errorf("Check allocated %v times per run, want 0", n)
	}
}
