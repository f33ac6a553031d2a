package hopper

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// fuzzArgs has every shape msgpack v5 allocates for by a claimed length:
// strings, binary, slices of values and of structs, maps, interfaces,
// pointers to itself, and times.
type fuzzArgs struct {
	S    string            `msgpack:"s"`
	N    int64             `msgpack:"n"`
	F    float64           `msgpack:"f"`
	B    []byte            `msgpack:"b"`
	L    []int32           `msgpack:"l"`
	SS   []string          `msgpack:"ss"`
	M    map[string]any    `msgpack:"m"`
	MI   map[int]string    `msgpack:"mi"`
	A    any               `msgpack:"a"`
	T    time.Time         `msgpack:"t"`
	Kids []fuzzArgs        `msgpack:"k"`
	P    *fuzzArgs         `msgpack:"p"`
	Arr  [3]uint8          `msgpack:"arr"`
	Tags map[string]string `msgpack:"tags"`
}

func (fuzzArgs) Kind() string { return "fuzz" }

// canonical renders v for comparison: maps with sorted keys, times as
// instants, pointers followed, NaN equal to itself.
func canonical(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Invalid:
		return "invalid"
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return "&" + canonical(v.Elem())
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return "time(" + strconv.FormatInt(t.UnixNano(), 10) + ")"
		}
		parts := make([]string, v.NumField())
		for i := range parts {
			parts[i] = canonical(v.Field(i))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "nil"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = canonical(v.Index(i))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		var parts []string
		for it := v.MapRange(); it.Next(); {
			parts = append(parts, canonical(it.Key())+":"+canonical(it.Value()))
		}
		sort.Strings(parts)
		return "map[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%T(%#v)", v.Interface(), v.Interface())
}

// allocated returns the bytes f allocates (all goroutines; the fuzz
// function runs alone).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocBound is the most a decode of n input bytes may allocate: a fixed
// allowance plus a generous amount per byte. A length bomb allocates
// megabytes from a handful of bytes and exceeds it by orders of magnitude.
func allocBound(n int) uint64 { return 64<<10 + 1024*uint64(n) }

// FuzzDecodeArgs feeds decodeArgs (what a worker runs on args read from the
// store) arbitrary bytes: it must not panic, must allocate in proportion to
// the input, and whatever decodes must re-encode to a fixed point.
func FuzzDecodeArgs(f *testing.F) {
	seeds := []any{
		fuzzArgs{},
		fuzzArgs{S: "héllo 世界 🎉", N: -1, F: math.Inf(1), B: []byte{0, 0xff}, L: []int32{1, -2},
			SS: []string{"a", ""}, M: map[string]any{"x": []any{1, "y", nil, map[string]any{"z": true}}},
			MI: map[int]string{1: "one"}, A: 3.5, T: time.Unix(1700000000, 123).UTC(),
			Kids: []fuzzArgs{{S: "kid"}}, P: &fuzzArgs{N: 7}, Arr: [3]uint8{1, 2, 3}, Tags: map[string]string{"k": "v"}},
		map[string]any{"s": "wrong", "unknown": 1},
		[]any{1, 2, 3},
		"just a string",
	}
	for _, s := range seeds {
		b, err := msgpack.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})                              // array32 bomb
	f.Add([]byte{0x81, 0xa1, 'l', 0xdd, 0xff, 0xff, 0xff, 0xff})             // {"l": bomb}
	f.Add([]byte{0x81, 0xa1, 'm', 0xdf, 0x7f, 0xff, 0xff, 0xff})             // {"m": map32 bomb}
	f.Add([]byte{0x81, 0xa1, 'a', 0xdb, 0xff, 0xff, 0xff, 0xff})             // {"a": str32 bomb}
	f.Add([]byte{0x81, 0xa1, 'b', 0xc6, 0xff, 0xff, 0xff, 0xff})             // {"b": bin32 bomb}
	f.Add(append(bytes.Repeat([]byte{0x81, 0xa1, 'p'}, 100), 0xc0))          // 100 nested pointers
	f.Add([]byte{0x81, 0xa1, 'k', 0xdd, 0x00, 0x10, 0x00, 0x00, 0x80, 0x80}) // Kids claiming 1M structs
	f.Add([]byte{0x81, 0xa1, 't', 0xc7, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04}) // bad time extension
	f.Fuzz(func(t *testing.T, b []byte) {
		var v fuzzArgs
		var err error
		if n := allocated(func() { err = decodeArgs(b, &v) }); n > allocBound(len(b)) {
			t.Fatalf("decoding %d bytes allocated %d bytes, more than %d", len(b), n, allocBound(len(b)))
		}
		if err != nil {
			return
		}
		once, err := encodeArgs(v)
		if err != nil {
			t.Fatalf("re-encoding a decoded value: %v", err)
		}
		var w fuzzArgs
		if err := decodeArgs(once, &w); err != nil {
			t.Fatalf("decoding re-encoded args: %v", err)
		}
		if a, b := canonical(reflect.ValueOf(v)), canonical(reflect.ValueOf(w)); a != b {
			t.Fatalf("round trip changed the value:\n%s\n%s", a, b)
		}
	})
}
