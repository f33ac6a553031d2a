package wire

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"
)

type flags uint8

type inner struct {
	Dur   time.Duration `wire:"d"`
	Flags flags         `wire:"f"`
}

type named struct {
	Kind string `wire:"k"`
	Skip string
}

type sample struct {
	inner
	Str    string            `wire:"s"`
	Bool   bool              `wire:"b"`
	Int    int               `wire:"i"`
	I8     int8              `wire:"i8"`
	U64    uint64            `wire:"u"`
	At     time.Time         `wire:"at"`
	Bytes  []byte            `wire:"y"`
	List   []string          `wire:"l"`
	Meta   map[string]string `wire:"m"`
	Job    named             `wire:",inline"`
	Hidden string            `wire:"-"`
	plain  int
}

func full() sample {
	return sample{
		inner: inner{Dur: -1500 * time.Microsecond, Flags: 5},
		Str:   strings.Repeat("é", 40), Bool: true, Int: -1 << 40, I8: -7, U64: 1<<64 - 1,
		At: time.UnixMilli(1900000000123), Bytes: []byte{0, 0xc1, 0xff}, List: []string{"a", ""},
		Meta: map[string]string{"k": "v", "": ""}, Job: named{Kind: "kind"},
	}
}

func TestRoundTrip(t *testing.T) {
	c := New[sample]()
	want := full()
	b, n := c.AppendMap([]byte("prefix"), &want)
	if n != 12 || string(b[:6]) != "prefix" {
		t.Fatalf("AppendMap wrote %d fields after %q, want 12 after the prefix", n, b[:6])
	}
	var got sample
	read, err := c.Decode(string(b[6:])+"trailing", &got)
	if err != nil || read != len(b)-6 {
		t.Fatalf("Decode = %d, %v; want %d bytes", read, err, len(b)-6)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip gave\n%+v\nwant\n%+v", got, want)
	}
	// Names follow promotion and inlining.
	var names []string
	for _, f := range c.Fields() {
		names = append(names, f.Name+"="+f.Key)
	}
	wantNames := []string{"Dur=d", "Flags=f", "Str=s", "Bool=b", "Int=i", "I8=i8", "U64=u", "At=at", "Bytes=y", "List=l", "Meta=m", "Job.Kind=k"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("Fields = %v, want %v", names, wantNames)
	}
}

// A time is kept in milliseconds, rounded up: never earlier than asked.
func TestTimeRoundsUp(t *testing.T) {
	c := New[sample]()
	in := sample{At: time.UnixMilli(1000).Add(time.Nanosecond)}
	b, _ := c.AppendMap(nil, &in)
	var out sample
	if _, err := c.Decode(string(b), &out); err != nil || out.At.UnixMilli() != 1001 {
		t.Fatalf("decoded %v (%v), want 1001 ms", out.At, err)
	}
}

func TestZeroFieldsLeftOut(t *testing.T) {
	c := New[sample]()
	in := sample{Bytes: []byte{}, List: []string{}, Meta: map[string]string{}, Hidden: "h", plain: 1}
	b, n := c.AppendMap(nil, &in)
	if n != 0 || len(b) != 1 || b[0] != 0x80 {
		t.Fatalf("AppendMap of zero fields = %x (%d fields), want an empty map", b, n)
	}
}

// Decode keeps the fields whose keys are absent, skips unknown keys of
// any type and reads nil as zero.
func TestDecodeKeepsSkipsAndClears(t *testing.T) {
	c := New[sample]()
	in := map[string]any{
		"s": "new", "zz": map[string]any{"x": []any{1.5, true, nil, "y", []byte{1}}}, "i": nil,
		"ext": msgpack.RawMessage{0xd6, 0xff, 0, 0, 0, 1}, "f32": float32(1), "f64": 2.5,
	}
	b, err := msgpack.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := sample{Str: "old", Int: 9, Bool: true}
	if _, err := c.Decode(string(b), &got); err != nil {
		t.Fatal(err)
	}
	if got.Str != "new" || got.Int != 0 || !got.Bool {
		t.Fatalf("decoded into %+v: want Str new, Int cleared, Bool kept", got)
	}
	if n, err := c.Decode("\xc0", &got); n != 1 || err != nil || got.Str != "new" {
		t.Fatalf("Decode(nil) = %d, %v, changed %+v", n, err, got)
	}
}

// What vmihailenco/msgpack writes for the same keys, Codec reads, and the
// other way round: the formats stay plain msgpack.
func TestMatchesMsgpackLibrary(t *testing.T) {
	type lib struct {
		Dur   int64             `msgpack:"d,omitempty"`
		Flags uint8             `msgpack:"f,omitempty"`
		Str   string            `msgpack:"s,omitempty"`
		Bool  bool              `msgpack:"b,omitempty"`
		Int   int               `msgpack:"i,omitempty"`
		I8    int8              `msgpack:"i8,omitempty"`
		U64   uint64            `msgpack:"u,omitempty"`
		At    int64             `msgpack:"at,omitempty"`
		Bytes []byte            `msgpack:"y,omitempty"`
		List  []string          `msgpack:"l,omitempty"`
		Meta  map[string]string `msgpack:"m,omitempty"`
		Kind  string            `msgpack:"k,omitempty"`
	}
	s := full()
	l := lib{Dur: int64(s.Dur), Flags: uint8(s.Flags), Str: s.Str, Bool: s.Bool, Int: s.Int, I8: s.I8, U64: s.U64,
		At: s.At.UnixMilli(), Bytes: s.Bytes, List: s.List, Meta: s.Meta, Kind: s.Job.Kind}
	c := New[sample]()
	for _, compact := range []bool{false, true} {
		enc := msgpack.GetEncoder()
		var buf strings.Builder
		enc.Reset(&buf)
		enc.UseCompactInts(compact)
		if err := enc.Encode(&l); err != nil {
			t.Fatal(err)
		}
		var got sample
		if _, err := c.Decode(buf.String(), &got); err != nil || !reflect.DeepEqual(got, s) {
			t.Fatalf("compact ints %v: decoded %+v (%v), want %+v", compact, got, err, s)
		}
	}
	b, _ := c.AppendMap(nil, &s)
	var back lib
	if err := msgpack.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, l) {
		t.Fatalf("msgpack.Unmarshal = %+v (%v), want %+v", back, err, l)
	}
}

func TestAlias(t *testing.T) {
	c := New[sample](Alias("old", "s"))
	b, _ := msgpack.Marshal(map[string]string{"old": "v"})
	var got sample
	if _, err := c.Decode(string(b), &got); err != nil || got.Str != "v" {
		t.Fatalf("alias decoded %+v (%v)", got, err)
	}
}

func TestWithout(t *testing.T) {
	c := New[sample](Without("Str", "Job.Kind", "Dur"))
	for _, f := range c.Fields() {
		if f.Name == "Str" || f.Name == "Job.Kind" || f.Name == "Dur" {
			t.Errorf("field %s is still carried", f.Name)
		}
	}
	in := sample{Str: "x", Int: 1}
	b, n := c.AppendMap(nil, &in)
	var out sample
	if _, err := c.Decode(string(b), &out); n != 1 || err != nil || out.Str != "" || out.Int != 1 {
		t.Fatalf("%d fields, decoded %+v (%v)", n, out, err)
	}
}

// Sixteen fields and more take a map16 header.
func TestManyFields(t *testing.T) {
	type wide struct {
		A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q int `wire:"x"`
	}
	defer func() {
		if recover() == nil {
			t.Error("New of a struct whose fields share a key did not panic")
		}
	}()
	New[wide]()
}

func TestMap16Header(t *testing.T) {
	type f = int
	type wide struct {
		A f `wire:"a"`
		B f `wire:"b"`
		C f `wire:"c"`
		D f `wire:"d"`
		E f `wire:"e"`
		F f `wire:"f"`
		G f `wire:"g"`
		H f `wire:"h"`
		I f `wire:"i"`
		J f `wire:"j"`
		K f `wire:"k"`
		L f `wire:"l"`
		M f `wire:"m"`
		N f `wire:"n"`
		O f `wire:"o"`
		P f `wire:"p"`
		Q f `wire:"q"`
	}
	c := New[wide]()
	in := wide{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	b, n := c.AppendMap([]byte{9}, &in)
	var out wide
	if _, err := c.Decode(string(b[1:]), &out); n != 17 || b[1] != 0xde || err != nil || out != in {
		t.Fatalf("%d fields, header %x, decoded %+v (%v)", n, b[1], out, err)
	}
	var lib map[string]int
	if err := msgpack.Unmarshal(b[1:], &lib); err != nil || len(lib) != 17 || lib["q"] != 17 {
		t.Fatalf("msgpack reads %v (%v)", lib, err)
	}
}

func TestNewPanics(t *testing.T) {
	type bad struct {
		F float64 `wire:"f"`
	}
	for name, build := range map[string]func(){
		"unsupported type": func() { New[bad]() },
		"not a struct":     func() { New[int]() },
		"unknown Without":  func() { New[sample](Without("Nope")) },
		"alias of nothing": func() { New[sample](Alias("old", "nope")) },
		"alias is a key":   func() { New[sample](Alias("i", "s")) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New did not panic")
				}
			}()
			build()
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	c := New[sample]()
	for _, in := range []any{
		map[string]any{"i8": 1000},            // overflows int8
		map[string]any{"u": -1},               // negative for a uint
		map[string]any{"s": 5},                // an int for a string
		map[string]any{"m": []string{}},       // an array for a map
		map[string]any{"b": "yes"},            // a string for a bool
		map[string]any{"f": 256},              // overflows uint8
		map[string]any{"at": uint64(1 << 63)}, // beyond int64
		[]int{1},                              // not a map
	} {
		b, err := msgpack.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var s sample
		if _, err := c.Decode(string(b), &s); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%v) = %v, want ErrCorrupt", in, err)
		}
	}
	b, _ := c.AppendMap(nil, &sample{Str: "x", Meta: map[string]string{"a": "b"}})
	for i := range len(b) {
		var s sample
		if _, err := c.Decode(string(b[:i]), &s); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode of %d of %d bytes = %v, want ErrCorrupt", i, len(b), err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	c := New[sample]()
	s := full()
	b, _ := c.AppendMap(nil, &s)
	f.Add(b)
	f.Add([]byte{0xde, 0xff, 0xff})
	f.Add([]byte{0x81, 0xa1, 'l', 0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s sample
		n, err := c.Decode(string(b), &s)
		if n < 0 || n > len(b) {
			t.Fatalf("Decode read %d of %d bytes", n, len(b))
		}
		if err == nil {
			// What decodes encodes again, to the same fields.
			again, _ := c.AppendMap(nil, &s)
			var s2 sample
			if _, err := c.Decode(string(again), &s2); err != nil || !equalish(s, s2) {
				t.Fatalf("re-encoding %+v gave %+v (%v)", s, s2, err)
			}
		}
	})
}

// equalish compares two samples, treating empty and nil alike and times at
// millisecond resolution.
func equalish(a, b sample) bool {
	return a.Str == b.Str && a.Bool == b.Bool && a.Int == b.Int && a.I8 == b.I8 && a.U64 == b.U64 &&
		a.Dur == b.Dur && a.Flags == b.Flags && a.At.UnixMilli() == b.At.UnixMilli() &&
		string(a.Bytes) == string(b.Bytes) && slices.Equal(a.List, b.List) && maps.Equal(a.Meta, b.Meta) &&
		a.Job == b.Job && fmt.Sprint(a.At.IsZero()) == fmt.Sprint(b.At.IsZero())
}

// The in-place zero test agrees with reflect's, empty slices and maps
// counting as zero, for every field of every type.
func TestZeroInPlace(t *testing.T) {
	c := New[sample]()
	s := full()
	for _, v := range []sample{{}, s, {Bytes: []byte{}, List: []string{}, Meta: map[string]string{}, Str: s.Str[:0]}, {At: time.Unix(0, 0)}} {
		rv := reflect.ValueOf(&v).Elem()
		for _, f := range c.fields {
			fv := rv.FieldByIndex(f.Index)
			want := fv.IsZero() || (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map || fv.Kind() == reflect.String) && fv.Len() == 0
			if got := isZero(unsafe.Add(unsafe.Pointer(&v), f.offset), f.zk); got != want {
				t.Errorf("field %s = %v: in place zero %v, reflect %v", f.Name, fv, got, want)
			}
		}
	}
}
