package wire

import (
	"reflect"
	"time"
	"unsafe"
)

// zeroKind says how to test a field for its zero value in place, from its
// address: AppendMap runs the test on every field of every value it
// encodes (the Redis envelope's options, once per job), where building a
// reflect.Value per field would cost several times more (measured: 17 ns
// for the envelope's one field, against about 2). The offsets come from
// reflect when the Codec is built, so the test reads exactly the field.
type zeroKind uint8

const (
	zeroBytes1 zeroKind = iota // bool, int8, uint8: the byte is 0
	zeroBytes2
	zeroBytes4
	zeroBytes8 // int, int64, time.Duration, uint64 on 64-bit platforms
	zeroLen    // string, slice: length 0
	zeroMap    // map[string]string: length 0
	zeroTime   // time.Time: IsZero
)

// zeroKindOf returns the zero test of a type opsFor accepts.
func zeroKindOf(t reflect.Type) zeroKind {
	switch {
	case t == typeTime:
		return zeroTime
	case t == typeMeta:
		return zeroMap
	}
	switch t.Kind() {
	case reflect.String, reflect.Slice:
		return zeroLen
	}
	switch t.Size() {
	case 1:
		return zeroBytes1
	case 2:
		return zeroBytes2
	case 4:
		return zeroBytes4
	}
	return zeroBytes8
}

// isZero reports whether the field at p, of kind k, holds its zero value.
func isZero(p unsafe.Pointer, k zeroKind) bool {
	switch k {
	case zeroBytes1:
		return *(*uint8)(p) == 0
	case zeroBytes2:
		return *(*uint16)(p) == 0
	case zeroBytes4:
		return *(*uint32)(p) == 0
	case zeroBytes8:
		return *(*uint64)(p) == 0
	case zeroLen:
		// A string's header and a slice's start alike: pointer, then length.
		return (*struct {
			ptr unsafe.Pointer
			len int
		})(p).len == 0
	case zeroMap:
		return len(*(*map[string]string)(p)) == 0
	default:
		return (*time.Time)(p).IsZero()
	}
}
