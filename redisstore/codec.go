package redisstore

import (
	"encoding/binary"
	"errors"
	"math"
)

// A minimal msgpack writer and reader for the fixed shapes the store keeps
// (envelope.go, history.go). Hand-written because the hot paths encode and
// decode one envelope per job and the general library costs reflection and
// allocations there; the formats stay plain msgpack, readable by any
// msgpack library.

func appendArrayHeader(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xdc), uint16(n))
	default:
		return binary.BigEndian.AppendUint32(append(b, 0xdd), uint32(n))
	}
}

func appendMapHeader(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xde), uint16(n))
	default:
		return binary.BigEndian.AppendUint32(append(b, 0xdf), uint32(n))
	}
}

func appendStr(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func appendBin(b []byte, p []byte) []byte {
	n := len(p)
	switch {
	case n <= math.MaxUint8:
		b = append(b, 0xc4, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xc5), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xc6), uint32(n))
	}
	return append(b, p...)
}

func appendInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= -32 && n < 0:
		return append(b, byte(int8(n)))
	case n >= 0 && n <= math.MaxUint8:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= math.MinInt32 && n <= math.MaxInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
	}
}

func appendNil(b []byte) []byte { return append(b, 0xc0) }

// errCorrupt is returned for bytes that do not have the expected shape.
var errCorrupt = errors.New("redisstore: corrupt stored data")

// reader reads msgpack values from a string without copying it.
type reader struct {
	s   string
	pos int
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.pos = len(r.s)
}

func (r *reader) byte() byte {
	if r.pos >= len(r.s) {
		r.fail()
		return 0
	}
	c := r.s[r.pos]
	r.pos++
	return c
}

// uint reads an n-byte big-endian unsigned integer.
func (r *reader) uint(n int) uint64 {
	if r.pos+n > len(r.s) {
		r.fail()
		return 0
	}
	var v uint64
	for i := range n {
		v = v<<8 | uint64(r.s[r.pos+i])
	}
	r.pos += n
	return v
}

// take returns the next n bytes.
func (r *reader) take(n uint64) string {
	if n > uint64(len(r.s)-r.pos) {
		r.fail()
		return ""
	}
	v := r.s[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return v
}

// nilNext reports whether the next value is nil, and consumes it if so.
func (r *reader) nilNext() bool {
	if r.pos < len(r.s) && r.s[r.pos] == 0xc0 {
		r.pos++
		return true
	}
	return false
}

// int reads any msgpack integer (or an integral float).
func (r *reader) int() int64 {
	c := r.byte()
	switch {
	case c <= 0x7f:
		return int64(c)
	case c >= 0xe0:
		return int64(int8(c))
	}
	switch c {
	case 0xcc:
		return int64(r.uint(1))
	case 0xcd:
		return int64(r.uint(2))
	case 0xce:
		return int64(r.uint(4))
	case 0xcf:
		return int64(r.uint(8))
	case 0xd0:
		return int64(int8(r.uint(1)))
	case 0xd1:
		return int64(int16(r.uint(2)))
	case 0xd2:
		return int64(int32(r.uint(4)))
	case 0xd3:
		return int64(r.uint(8))
	case 0xca:
		return int64(math.Float32frombits(uint32(r.uint(4))))
	case 0xcb:
		return int64(math.Float64frombits(r.uint(8)))
	case 0xc0:
		return 0
	}
	r.fail()
	return 0
}

// bytes reads a str or bin value (nil reads as empty).
func (r *reader) bytes() string {
	c := r.byte()
	switch {
	case c >= 0xa0 && c <= 0xbf:
		return r.take(uint64(c & 0x1f))
	}
	switch c {
	case 0xd9, 0xc4:
		return r.take(r.uint(1))
	case 0xda, 0xc5:
		return r.take(r.uint(2))
	case 0xdb, 0xc6:
		return r.take(r.uint(4))
	case 0xc0:
		return ""
	}
	r.fail()
	return ""
}

// arrayLen reads an array header.
func (r *reader) arrayLen() int {
	c := r.byte()
	switch {
	case c >= 0x90 && c <= 0x9f:
		return int(c & 0x0f)
	case c == 0xdc:
		return r.count(r.uint(2))
	case c == 0xdd:
		return r.count(r.uint(4))
	}
	r.fail()
	return 0
}

// mapLen reads a map header (nil reads as an empty map).
func (r *reader) mapLen() int {
	c := r.byte()
	switch {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f)
	case c == 0xde:
		return r.count(r.uint(2))
	case c == 0xdf:
		return r.count(r.uint(4))
	case c == 0xc0:
		return 0
	}
	r.fail()
	return 0
}

// count bounds an element count by the bytes left (each element takes
// at least one), so corrupt input cannot ask for a huge allocation.
func (r *reader) count(n uint64) int {
	if n > uint64(len(r.s)-r.pos) {
		r.fail()
		return 0
	}
	return int(n)
}

// maxSkipDepth bounds the nesting skip follows, so corrupt input cannot
// make it recurse once per byte.
const maxSkipDepth = 64

// skip reads and ignores one value of any type (fields added by a newer
// version).
func (r *reader) skip() { r.skipDepth(0) }

func (r *reader) skipDepth(depth int) {
	if r.err != nil {
		return
	}
	if depth > maxSkipDepth {
		r.fail()
		return
	}
	if r.pos >= len(r.s) {
		r.fail()
		return
	}
	c := r.s[r.pos]
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		r.pos++
	case c >= 0xcc && c <= 0xd3 || c == 0xca || c == 0xcb:
		r.int()
	case c >= 0xa0 && c <= 0xbf || c == 0xd9 || c == 0xda || c == 0xdb || c == 0xc4 || c == 0xc5 || c == 0xc6:
		r.bytes()
	case c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd:
		for n := r.arrayLen(); n > 0 && r.err == nil; n-- {
			r.skipDepth(depth + 1)
		}
	case c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf:
		for n := r.mapLen(); n > 0 && r.err == nil; n-- {
			r.skipDepth(depth + 1)
			r.skipDepth(depth + 1)
		}
	default:
		r.fail()
	}
}

// float reads any msgpack number as a float64.
func (r *reader) float() float64 {
	if r.pos < len(r.s) {
		switch r.s[r.pos] {
		case 0xca:
			r.pos++
			return float64(math.Float32frombits(uint32(r.uint(4))))
		case 0xcb:
			r.pos++
			return math.Float64frombits(r.uint(8))
		}
	}
	return float64(r.int())
}

// listLen reads an array header, or the header of an empty map (what Lua's
// cmsgpack writes for an empty table).
func (r *reader) listLen() int {
	if r.pos < len(r.s) && r.s[r.pos] == 0x80 {
		r.pos++
		return 0
	}
	return r.arrayLen()
}

func appendFloat(b []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
}
