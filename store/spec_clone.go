package store

import (
	"maps"
	"reflect"
	"slices"
)

// Clone returns a copy of s that shares no map or slice with it; nil
// stays nil. Safe to call on a JobSpec other goroutines only read.
func (s JobSpec) Clone() JobSpec {
	s.Meta = maps.Clone(s.Meta)
	if len(specRefFields) > 0 {
		v := reflect.ValueOf(&s).Elem()
		for _, i := range specRefFields {
			cloneRef(v.Field(i))
		}
	}
	return s
}

// specRefFields are the indexes of JobSpec's map and slice fields besides
// Meta (which Clone copies without reflection: it is on every job).
var specRefFields = func() []int {
	var out []int
	t := reflect.TypeFor[JobSpec]()
	for i := range t.NumField() {
		f := t.Field(i)
		if k := f.Type.Kind(); (k == reflect.Map || k == reflect.Slice) && f.Name != "Meta" {
			out = append(out, i)
		}
	}
	return out
}()

// cloneRef replaces the map or slice in f with a copy, for the types a
// JobSpec field may have.
func cloneRef(f reflect.Value) {
	switch x := f.Interface().(type) {
	case map[string]string:
		f.Set(reflect.ValueOf(maps.Clone(x)))
	case []byte:
		f.Set(reflect.ValueOf(slices.Clone(x)))
	case []string:
		f.Set(reflect.ValueOf(slices.Clone(x)))
	default:
		panic("store: JobSpec field of type " + f.Type().String() + " cannot be cloned")
	}
}
