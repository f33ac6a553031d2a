// Package fieldcopy copies the set fields of one struct into fields of the
// same types of another, by a plan built once by reflection: how hopper's
// enqueue options reach a job (hopper.EnqueueOpts to store.NewJob, and
// one EnqueueOpts over another) without a hand-written copy per field.
//
// A field is set when it is not its zero value (for a time.Time, when
// IsZero is false, whatever its location). A plan is built by reflection,
// then applied through the fields' offsets, by kind, without reflect.Value
// (which would cost several times more and move both structs to the heap:
// the plan runs once per enqueued job). Maps and slices are copied when
// the plan asks, so that the destination shares nothing with the source.
package fieldcopy

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"
	"unsafe"
)

// Plan copies the set fields of S into D. Build it once with New; a Plan
// is immutable and safe for concurrent use.
type Plan[S, D any] struct {
	steps []step
	clone bool
}

// Pair names one copy: the field of S at index sequence From into the
// field of D at To (as reflect.StructField.Index); both of one type.
type Pair struct {
	From, To []int
}

type step struct {
	from, to uintptr
	k        kind
}

// kind is how a field is tested and copied.
type kind uint8

const (
	kind1 kind = iota // bool, int8, uint8
	kind2
	kind4
	kind8 // int, int64, uint64, time.Duration, uintptr on 64-bit platforms
	kindString
	kindTime
	kindPointer
	kindMeta    // map[string]string
	kindBytes   // []byte
	kindStrings // []string
)

var (
	typeTime    = reflect.TypeFor[time.Time]()
	typeMeta    = reflect.TypeFor[map[string]string]()
	typeBytes   = reflect.TypeFor[[]byte]()
	typeStrings = reflect.TypeFor[[]string]()
)

func kindOf(t reflect.Type) (kind, bool) {
	switch t {
	case typeTime:
		return kindTime, true
	case typeMeta:
		return kindMeta, true
	case typeBytes:
		return kindBytes, true
	case typeStrings:
		return kindStrings, true
	}
	switch t.Kind() {
	case reflect.String:
		return kindString, true
	case reflect.Pointer:
		return kindPointer, true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch t.Size() {
		case 1:
			return kind1, true
		case 2:
			return kind2, true
		case 4:
			return kind4, true
		case 8:
			return kind8, true
		}
	}
	return 0, false
}

// New builds the plan of pairs. clone makes Copy copy maps and slices
// rather than share them; pointers are always shared. It panics (a
// programming error, found by any test that builds the plan) when S or D
// is not a struct, an index is out of range or crosses a pointer, the two
// fields' types differ, or a type is not one of: bool, integers,
// time.Duration, string, time.Time, a pointer, map[string]string, []byte
// and []string.
func New[S, D any](pairs []Pair, clone bool) *Plan[S, D] {
	st, dt := reflect.TypeFor[S](), reflect.TypeFor[D]()
	p := &Plan[S, D]{clone: clone}
	for _, pr := range pairs {
		fromOff, ft := offset(st, pr.From)
		toOff, tt := offset(dt, pr.To)
		if ft != tt {
			panic(fmt.Sprintf("fieldcopy: %s field %v is a %s, %s field %v a %s", st, pr.From, ft, dt, pr.To, tt))
		}
		k, ok := kindOf(ft)
		if !ok {
			panic(fmt.Sprintf("fieldcopy: %s field %v has type %s, which fieldcopy does not copy", st, pr.From, ft))
		}
		p.steps = append(p.steps, step{from: fromOff, to: toOff, k: k})
	}
	return p
}

// offset returns the offset and type of the field at index in struct t.
func offset(t reflect.Type, index []int) (uintptr, reflect.Type) {
	var off uintptr
	for _, i := range index {
		if t.Kind() != reflect.Struct {
			panic(fmt.Sprintf("fieldcopy: index %v crosses %s, not a struct held by value", index, t))
		}
		f := t.Field(i)
		off += f.Offset
		t = f.Type
	}
	return off, t
}

// Copy sets every field of dst in the plan whose source field in src is
// set. dst and src may be the same struct only if the plan copies no field
// onto another.
func (p *Plan[S, D]) Copy(dst *D, src *S) {
	d, s := unsafe.Pointer(dst), unsafe.Pointer(src)
	for _, st := range p.steps {
		copyField(unsafe.Add(d, st.to), unsafe.Add(s, st.from), st.k, p.clone)
	}
}

// copyField copies the field at src to dst when it is set.
func copyField(dst, src unsafe.Pointer, k kind, clone bool) {
	switch k {
	case kind1:
		if v := *(*uint8)(src); v != 0 {
			*(*uint8)(dst) = v
		}
	case kind2:
		if v := *(*uint16)(src); v != 0 {
			*(*uint16)(dst) = v
		}
	case kind4:
		if v := *(*uint32)(src); v != 0 {
			*(*uint32)(dst) = v
		}
	case kind8:
		if v := *(*uint64)(src); v != 0 {
			*(*uint64)(dst) = v
		}
	case kindString:
		if v := *(*string)(src); v != "" {
			*(*string)(dst) = v
		}
	case kindTime:
		if v := (*time.Time)(src); !v.IsZero() {
			*(*time.Time)(dst) = *v
		}
	case kindPointer:
		if v := *(*unsafe.Pointer)(src); v != nil {
			*(*unsafe.Pointer)(dst) = v
		}
	case kindMeta:
		if v := *(*map[string]string)(src); v != nil {
			if clone {
				v = maps.Clone(v)
			}
			*(*map[string]string)(dst) = v
		}
	case kindBytes:
		if v := *(*[]byte)(src); v != nil {
			if clone {
				v = slices.Clone(v)
			}
			*(*[]byte)(dst) = v
		}
	case kindStrings:
		if v := *(*[]string)(src); v != nil {
			if clone {
				v = slices.Clone(v)
			}
			*(*[]string)(dst) = v
		}
	}
}
