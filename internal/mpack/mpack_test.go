package mpack_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/vmihailenco/msgpack/v5"
)

// TestIntegersRoundTrip: every integer AppendInt and AppendUint write
// reads back the same, by Integer and by the msgpack library, in the
// shortest encoding the library also picks.
func TestIntegersRoundTrip(t *testing.T) {
	ints := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, -1, -32, -33, -128, -129, -32768, -32769, -1 << 31, -1<<31 - 1, math.MaxInt64, math.MinInt64}
	for _, n := range ints {
		b := mpack.AppendInt(nil, n)
		r := mpack.NewReader(string(b))
		if got, big := r.Integer(); got != n || big || r.Err() != nil || r.Len() != 0 {
			t.Errorf("AppendInt(%d) read back as %d (big %v, err %v, %d bytes left)", n, got, big, r.Err(), r.Len())
		}
		var lib int64
		if err := msgpack.Unmarshal(b, &lib); err != nil || lib != n {
			t.Errorf("AppendInt(%d): the msgpack library reads %d, %v", n, lib, err)
		}
		if want := compact(t, n); string(b) != string(want) {
			t.Errorf("AppendInt(%d) = % x, want the shortest, % x", n, b, want)
		}
	}
	r := mpack.NewReader(string(mpack.AppendUint(nil, math.MaxUint64)))
	if got, big := r.Integer(); uint64(got) != math.MaxUint64 || !big {
		t.Errorf("AppendUint(MaxUint64) read back as %d, big %v", uint64(got), big)
	}
}

// TestValuesRoundTrip: strings and bins of every header size, headers,
// floats, nil and booleans read back, and the library reads the same.
func TestValuesRoundTrip(t *testing.T) {
	for _, n := range []int{0, 31, 32, 255, 256, 65535, 65536} {
		s := strings.Repeat("x", n)
		b := mpack.AppendStr(nil, s)
		b = mpack.AppendBin(b, []byte(s))
		r := mpack.NewReader(string(b))
		if a, c := r.Str(), r.Str(); a != s || c != s || r.Err() != nil || r.Len() != 0 {
			t.Errorf("a str and a bin of %d bytes read back as %d and %d bytes (err %v)", n, len(a), len(c), r.Err())
		}
		var lib string
		if err := msgpack.Unmarshal(mpack.AppendStr(nil, s), &lib); err != nil || lib != s {
			t.Errorf("AppendStr of %d bytes: the library reads %d bytes, %v", n, len(lib), err)
		}
	}
	for _, n := range []int{0, 15, 16, 65535, 65536} {
		b := mpack.AppendArrayHeader(nil, n)
		b = mpack.AppendMapHeader(b, n)
		b = append(b, make([]byte, 2*n)...) // room, so that the counts are believed
		r := mpack.NewReader(string(b))
		if a, m := r.ArrayLen(), r.MapLen(); a != n || m != n || r.Err() != nil {
			t.Errorf("headers of %d read back as %d and %d (err %v)", n, a, m, r.Err())
		}
	}
	b := mpack.AppendFloat(nil, 2.5)
	b = mpack.AppendNil(b)
	b = mpack.AppendBool(b, true)
	b = mpack.AppendBool(b, false)
	r := mpack.NewReader(string(b))
	if f, isNil, t1, f1 := r.Float(), r.NilNext(), r.Bool(), r.Bool(); f != 2.5 || !isNil || !t1 || f1 || r.Err() != nil || r.Len() != 0 {
		t.Errorf("2.5, nil, true, false read back as %v, %v, %v, %v (err %v)", f, isNil, t1, f1, r.Err())
	}
}

// TestSkipEveryType: Skip passes over one value of each msgpack type the
// library writes, nested, and stops at the value after it.
func TestSkipEveryType(t *testing.T) {
	vals := []any{nil, true, 7, -7, -200, 1 << 40, uint64(math.MaxUint64), float32(1.5), 2.5, "s", strings.Repeat("s", 300), []byte{1, 2},
		[]any{1, "a", []any{nil}}, map[string]any{"k": map[string]any{"n": []int{1, 2}}}, msgpack.RawMessage{0xd4, 1, 2}, msgpack.RawMessage{0xc7, 3, 1, 'a', 'b', 'c'}}
	for _, v := range vals {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b = mpack.AppendStr(b, "after")
		r := mpack.NewReader(string(b))
		r.Skip()
		if got := r.Str(); got != "after" || r.Err() != nil {
			t.Errorf("after skipping %v (% x): %q, %v", v, b, got, r.Err())
		}
	}
}

// TestCorrupt: bytes of the wrong type or cut short stop the reader with
// ErrCorrupt, and every later read returns zero values.
func TestCorrupt(t *testing.T) {
	whole := mpack.AppendStr(mpack.AppendArrayHeader(nil, 1), "value")
	for i := range len(whole) {
		r := mpack.NewReader(string(whole[:i]))
		r.ArrayLen()
		if s := r.Str(); s != "" || !errors.Is(r.Err(), mpack.ErrCorrupt) {
			t.Errorf("%d of %d bytes: %q, %v; want \"\" and ErrCorrupt", i, len(whole), s, r.Err())
		}
	}
	r := mpack.NewReader(string(mpack.AppendInt(nil, 5)))
	if s := r.Str(); s != "" || !errors.Is(r.Err(), mpack.ErrCorrupt) {
		t.Errorf("an int read as a str: %q, %v; want ErrCorrupt", s, r.Err())
	}
	if n, _ := r.Integer(); n != 0 {
		t.Errorf("a read after the first problem gave %d, want 0", n)
	}
	// A header that claims more elements than bytes remain.
	r = mpack.NewReader(string(mpack.AppendArrayHeader(nil, 1000)))
	if n := r.ArrayLen(); n != 0 || r.Err() == nil {
		t.Errorf("an array of 1000 in 3 bytes: %d, %v; want 0 and an error", n, r.Err())
	}
	// Nesting deeper than MaxDepth.
	deep := strings.Repeat("\x91", mpack.MaxDepth+2) + "\xc0"
	r = mpack.NewReader(deep)
	if r.Skip(); r.Err() == nil {
		t.Errorf("Skip of %d nested arrays: no error", mpack.MaxDepth+2)
	}
}

// compact is v as the msgpack library writes it with compact integers.
func compact(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
