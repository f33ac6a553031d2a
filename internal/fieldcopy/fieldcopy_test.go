package fieldcopy

import (
	"reflect"
	"testing"
	"time"
)

type replace uint8

type inner struct {
	Meta  map[string]string
	Bytes []byte
}

type all struct {
	B     bool
	I8    int8
	U16   uint16
	I32   int32
	I     int
	D     time.Duration
	R     replace
	S     string
	T     time.Time
	P     *int
	L     []string
	inner // embedded: its fields are reached by index sequences
}

// pairsOf pairs every leaf field of all with itself.
func pairsOf() []Pair {
	var out []Pair
	for _, f := range reflect.VisibleFields(reflect.TypeFor[all]()) {
		if !f.Anonymous {
			out = append(out, Pair{From: f.Index, To: f.Index})
		}
	}
	return out
}

func full() all {
	n := 7
	return all{B: true, I8: -3, U16: 65535, I32: -1 << 30, I: 1 << 40, D: time.Hour, R: 4, S: "s",
		T: time.UnixMilli(1900000000123), P: &n, L: []string{"a"}, inner: inner{Meta: map[string]string{"k": "v"}, Bytes: []byte{0}}}
}

func TestCopiesSetFields(t *testing.T) {
	p := New[all, all](pairsOf(), true)
	src := full()
	var dst all
	p.Copy(&dst, &src)
	if !reflect.DeepEqual(dst, src) {
		t.Fatalf("copied\n%+v\nwant\n%+v", dst, src)
	}
	// Cloned: the copy shares no map or slice.
	dst.Meta["k"], dst.Bytes[0], dst.L[0] = "x", 1, "x"
	if src.Meta["k"] != "v" || src.Bytes[0] != 0 || src.L[0] != "a" {
		t.Fatalf("the copy shares memory with the source: %+v", src)
	}
	// Unset fields, a zero time in a location included, leave dst as it is.
	keep := full()
	zero := all{T: time.Time{}.In(time.FixedZone("x", 3600))}
	p.Copy(&keep, &zero)
	if want := full(); !reflect.DeepEqual(keep, want) {
		t.Fatalf("zero fields overwrote:\n%+v\nwant\n%+v", keep, want)
	}
}

func TestSharesWithoutClone(t *testing.T) {
	p := New[all, all](pairsOf(), false)
	src := full()
	var dst all
	p.Copy(&dst, &src)
	dst.Meta["k"] = "x"
	if src.Meta["k"] != "x" {
		t.Fatal("without clone, the map was copied")
	}
}

func TestNewPanics(t *testing.T) {
	type other struct {
		S int
		F float64
		X struct{ Y int }
		Q *inner
	}
	for name, pairs := range map[string][]Pair{
		"types differ":       {{From: []int{7}, To: []int{0}}},
		"unsupported type":   {{From: []int{1}, To: []int{1}}},
		"index out of range": {{From: []int{99}, To: []int{0}}},
		"through a pointer":  {{From: []int{3, 0}, To: []int{3, 0}}},
		"struct not a field": {{From: []int{2}, To: []int{2}}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New did not panic")
				}
			}()
			if name == "types differ" {
				New[all, other](pairs, true)
			} else {
				New[other, other](pairs, true)
			}
		})
	}
}

// Copy moves neither struct to the heap: it runs once per enqueued job.
func TestCopyDoesNotAllocate(t *testing.T) {
	p := New[all, all](pairsOf(), false)
	src := full()
	if n := testing.AllocsPerRun(100, func() {
		var dst all
		p.Copy(&dst, &src)
	}); n != 0 {
		t.Fatalf("Copy allocates %v times", n)
	}
}
