package wire

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/hopperq/hopper/internal/mpack"
)

// Codec encodes and decodes the tagged fields of struct type T as one
// msgpack map. Build one with New, once per use (a package variable); a
// Codec is immutable and safe for concurrent use.
type Codec[T any] struct {
	fields []field
	byKey  map[string]int
}

// Field describes one field a Codec carries.
type Field struct {
	// Name is the field's Go name as a selector on T would spell it: a
	// field promoted from an embedded struct by its own name, one of a
	// struct inlined under a name with that name first ("Job.Kind").
	Name string
	// Key is the field's key in the map (its wire tag).
	Key string
	// Index is the field's index sequence, for reflect.Value.FieldByIndex
	// on a T.
	Index []int
	// Type is the field's type.
	Type reflect.Type
}

type field struct {
	Field
	ops *ops
	// offset is the field's offset in T and zk how to tell its zero
	// value there: the zero test AppendMap runs on every field of every
	// value, without building a reflect.Value (see zero.go).
	offset uintptr
	zk     zeroKind
}

// Option changes what New builds.
type Option func(*options)

type options struct {
	without map[string]bool
	alias   map[string]string
}

// Without leaves the named fields (Field.Name) out of the codec: a format
// that carries them another way. New panics on a name T has no field of.
func Without(names ...string) Option {
	return func(o *options) {
		for _, n := range names {
			o.without[n] = true
		}
	}
}

// Alias makes Decode read key old as key: a key an earlier version of a
// format wrote for the field. New panics when key is no field's or old is
// one.
func Alias(old, key string) Option {
	return func(o *options) { o.alias[old] = key }
}

// New builds the codec of T's fields that have a `wire:"key"` tag,
// walking embedded structs and ones tagged `wire:",inline"`, in field
// order. It panics (a programming error, found by any test that builds
// the codec) when T is not a struct, a tagged field has a type the
// package does not encode, two fields share a key, or an option names
// nothing.
func New[T any](opts ...Option) *Codec[T] {
	o := options{without: map[string]bool{}, alias: map[string]string{}}
	for _, opt := range opts {
		opt(&o)
	}
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic("wire: New of " + t.String() + ", not a struct")
	}
	c := &Codec[T]{byKey: map[string]int{}}
	var all []field
	walk(t, "", nil, 0, &all)
	seen := map[string]bool{}
	for _, f := range all {
		seen[f.Name] = true
		if o.without[f.Name] {
			continue
		}
		if _, dup := c.byKey[f.Key]; dup {
			panic(fmt.Sprintf("wire: %s: key %q of field %s is taken", t, f.Key, f.Name))
		}
		c.byKey[f.Key] = len(c.fields)
		c.fields = append(c.fields, f)
	}
	for n := range o.without {
		if !seen[n] {
			panic(fmt.Sprintf("wire: %s has no tagged field %s to leave out", t, n))
		}
	}
	for old, key := range o.alias {
		i, ok := c.byKey[key]
		if _, taken := c.byKey[old]; !ok || taken {
			panic(fmt.Sprintf("wire: %s: alias %q of key %q: no such key, or the alias is one", t, old, key))
		}
		c.byKey[old] = i
	}
	return c
}

// walk appends the tagged fields of struct type t, at offset base in T,
// to out.
func walk(t reflect.Type, prefix string, index []int, base uintptr, out *[]field) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, tagged := f.Tag.Lookup("wire")
		key, opt, _ := strings.Cut(tag, ",")
		idx := append(slices.Clone(index), i)
		switch {
		case tag == "-":
		case f.Anonymous && !tagged && f.Type.Kind() == reflect.Struct:
			walk(f.Type, prefix, idx, base+f.Offset, out)
		case !f.IsExported():
		case key == "" && opt == "inline" && f.Type.Kind() == reflect.Struct:
			walk(f.Type, prefix+f.Name+".", idx, base+f.Offset, out)
		case tagged && key != "":
			op := opsFor(f.Type)
			if op == nil {
				panic(fmt.Sprintf("wire: field %s%s of %s has type %s, which wire does not encode", prefix, f.Name, t, f.Type))
			}
			*out = append(*out, field{Field: Field{Name: prefix + f.Name, Key: key, Index: idx, Type: f.Type}, ops: op,
				offset: base + f.Offset, zk: zeroKindOf(f.Type)})
		}
	}
}

// Fields returns the fields c carries, in the order it writes them.
func (c *Codec[T]) Fields() []Field {
	out := make([]Field, len(c.fields))
	for i, f := range c.fields {
		out[i] = f.Field
	}
	return out
}

// AppendMap appends v's non-zero fields to b as one msgpack map, and
// returns the extended buffer and how many fields it holds (an empty map
// when none).
func (c *Codec[T]) AppendMap(b []byte, v *T) ([]byte, int) {
	p := unsafe.Pointer(v)
	start := len(b)
	b = append(b, 0x80)
	n := 0
	for i := range c.fields {
		f := &c.fields[i]
		if isZero(unsafe.Add(p, f.offset), f.zk) {
			continue
		}
		fv := fieldOf(reflect.ValueOf(v).Elem(), f.Index)
		b = mpack.AppendStr(b, f.Key)
		b = f.ops.enc(b, fv)
		n++
	}
	if n < 16 {
		b[start] = 0x80 | byte(n)
		return b, n
	}
	// A map16 header takes three bytes where one was kept.
	b = append(b, 0, 0)
	copy(b[start+3:], b[start+1:len(b)-2])
	b[start] = 0xde
	binary.BigEndian.PutUint16(b[start+1:], uint16(n))
	return b, n
}

// Decode reads one msgpack map (or nil) from the start of s into v and
// returns how many bytes it took. A key v's codec has sets its field (nil
// sets the zero value); other keys are skipped; fields whose keys are
// absent keep their value. Bytes that are not such a map give an error
// wrapping ErrCorrupt that names the field when one is at fault. Strings
// and slices decoded do not share memory with s.
func (c *Codec[T]) Decode(s string, v *T) (int, error) {
	r := mpack.NewReader(s)
	if r.NilNext() {
		return r.Pos(), nil
	}
	n := r.MapLen()
	rv := reflect.ValueOf(v).Elem()
	for ; n > 0 && r.Err() == nil; n-- {
		k := r.Str()
		i, ok := c.byKey[k]
		if !ok {
			r.Skip()
			continue
		}
		f := &c.fields[i]
		fv := fieldOf(rv, f.Index)
		if r.NilNext() {
			fv.SetZero()
			continue
		}
		f.ops.dec(&r, fv)
		if r.Err() != nil {
			return r.Pos(), fmt.Errorf("%w: field %s (key %q) holds no %s", ErrCorrupt, f.Name, f.Key, f.Type)
		}
	}
	if r.Err() != nil {
		return r.Pos(), ErrCorrupt
	}
	return r.Pos(), nil
}

// fieldOf is rv.FieldByIndex, quicker for a field of rv itself.
func fieldOf(rv reflect.Value, index []int) reflect.Value {
	if len(index) == 1 {
		return rv.Field(index[0])
	}
	return rv.FieldByIndex(index)
}
