package wire

import (
	"reflect"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/internal/mstime"
)

// ops are how one type of field is encoded and decoded (zero.go tests
// for its zero value). dec is never called on a nil value, and reports
// bad input through r.
type ops struct {
	enc func(b []byte, v reflect.Value) []byte
	dec func(r *mpack.Reader, v reflect.Value)
}

var (
	typeTime    = reflect.TypeFor[time.Time]()
	typeStrings = reflect.TypeFor[[]string]()
	typeMeta    = reflect.TypeFor[map[string]string]()
)

// opsFor returns the ops of type t, or nil when wire does not encode it.
func opsFor(t reflect.Type) *ops {
	switch {
	case t == typeTime:
		return &timeOps
	case t == typeStrings:
		return &stringsOps
	case t == typeMeta:
		return &metaOps
	}
	switch t.Kind() {
	case reflect.String:
		return &stringOps
	case reflect.Bool:
		return &boolOps
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &intOps
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &uintOps
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &bytesOps
		}
	}
	return nil
}

var stringOps = ops{
	enc: func(b []byte, v reflect.Value) []byte { return mpack.AppendStr(b, v.String()) },
	dec: func(r *mpack.Reader, v reflect.Value) { v.SetString(strings.Clone(r.Str())) },
}

var boolOps = ops{
	enc: func(b []byte, v reflect.Value) []byte { return mpack.AppendBool(b, true) },
	dec: func(r *mpack.Reader, v reflect.Value) { v.SetBool(r.Bool()) },
}

var intOps = ops{
	enc: func(b []byte, v reflect.Value) []byte { return mpack.AppendInt(b, v.Int()) },
	dec: func(r *mpack.Reader, v reflect.Value) {
		x, big := r.Integer()
		if big || v.OverflowInt(x) {
			r.Fail()
			return
		}
		v.SetInt(x)
	},
}

var uintOps = ops{
	enc: func(b []byte, v reflect.Value) []byte { return mpack.AppendUint(b, v.Uint()) },
	dec: func(r *mpack.Reader, v reflect.Value) {
		x, big := r.Integer()
		if x < 0 && !big || v.OverflowUint(uint64(x)) {
			r.Fail()
			return
		}
		v.SetUint(uint64(x))
	},
}

var timeOps = ops{
	enc: func(b []byte, v reflect.Value) []byte {
		return mpack.AppendInt(b, mstime.CeilUnix(*v.Addr().Interface().(*time.Time)))
	},
	dec: func(r *mpack.Reader, v reflect.Value) {
		x, big := r.Integer()
		if big {
			r.Fail()
			return
		}
		*v.Addr().Interface().(*time.Time) = time.UnixMilli(x)
	},
}

var bytesOps = ops{
	enc: func(b []byte, v reflect.Value) []byte { return mpack.AppendBin(b, v.Bytes()) },
	dec: func(r *mpack.Reader, v reflect.Value) {
		if s := r.Str(); s != "" {
			v.SetBytes([]byte(s))
		} else {
			v.SetZero() // empty is zero: nil
		}
	},
}

var stringsOps = ops{
	enc: func(b []byte, v reflect.Value) []byte {
		s := v.Interface().([]string)
		b = mpack.AppendArrayHeader(b, len(s))
		for _, x := range s {
			b = mpack.AppendStr(b, x)
		}
		return b
	},
	dec: func(r *mpack.Reader, v reflect.Value) {
		n := r.ArrayLen()
		if n == 0 {
			v.SetZero()
			return
		}
		s := make([]string, n)
		for i := range s {
			s[i] = strings.Clone(r.Str())
		}
		v.Set(reflect.ValueOf(s))
	},
}

var metaOps = ops{
	enc: func(b []byte, v reflect.Value) []byte {
		m := v.Interface().(map[string]string)
		b = mpack.AppendMapHeader(b, len(m))
		for k, x := range m {
			b = mpack.AppendStr(b, k)
			b = mpack.AppendStr(b, x)
		}
		return b
	},
	dec: func(r *mpack.Reader, v reflect.Value) {
		n := r.MapLen()
		if n == 0 {
			v.SetZero()
			return
		}
		m := make(map[string]string, n)
		for ; n > 0 && r.Err() == nil; n-- {
			k := strings.Clone(r.Str())
			m[k] = strings.Clone(r.Str())
		}
		v.Set(reflect.ValueOf(m))
	},
}
