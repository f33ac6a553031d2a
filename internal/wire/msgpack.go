package wire

import (
	"encoding/binary"
	"errors"
	"math"
)

// The msgpack writer and reader of the few shapes a field takes. Written
// here rather than taken from a library because the Redis envelope is
// encoded and decoded once per job on the hot path; the output is plain
// msgpack that any library reads.

// ErrCorrupt is returned (wrapped) for bytes that are not the msgpack a
// Codec expects.
var ErrCorrupt = errors.New("wire: corrupt msgpack")

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
	case n >= 0:
		return appendUint(b, uint64(n))
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= math.MinInt8:
		return append(b, 0xd0, byte(int8(n)))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
	}
}

func appendUint(b []byte, n uint64) []byte {
	switch {
	case n <= 127:
		return append(b, byte(n))
	case n <= math.MaxUint8:
		return append(b, 0xcc, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), n)
	}
}

// reader reads msgpack values from a string without copying it. The first
// problem sets err and stops every later read.
type reader struct {
	s   string
	pos int
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = ErrCorrupt
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

// peek returns the next byte without reading it; 0xc1 (never a msgpack
// value) at the end.
func (r *reader) peek() byte {
	if r.pos >= len(r.s) {
		return 0xc1
	}
	return r.s[r.pos]
}

// nilNext reports whether the next value is nil, and reads it if so.
func (r *reader) nilNext() bool {
	if r.peek() == 0xc0 {
		r.pos++
		return true
	}
	return false
}

// uint reads an n-byte big-endian unsigned integer.
func (r *reader) uint(n int) uint64 {
	if n > len(r.s)-r.pos {
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

// integer reads any msgpack integer; big reports an unsigned one above
// MaxInt64, which v then holds as two's complement.
func (r *reader) integer() (v int64, big bool) {
	c := r.byte()
	switch {
	case c <= 0x7f:
		return int64(c), false
	case c >= 0xe0:
		return int64(int8(c)), false
	}
	switch c {
	case 0xcc:
		return int64(r.uint(1)), false
	case 0xcd:
		return int64(r.uint(2)), false
	case 0xce:
		return int64(r.uint(4)), false
	case 0xcf:
		u := r.uint(8)
		return int64(u), u > math.MaxInt64
	case 0xd0:
		return int64(int8(r.uint(1))), false
	case 0xd1:
		return int64(int16(r.uint(2))), false
	case 0xd2:
		return int64(int32(r.uint(4))), false
	case 0xd3:
		return int64(r.uint(8)), false
	}
	r.fail()
	return 0, false
}

// bool reads a msgpack boolean.
func (r *reader) bool() bool {
	switch r.byte() {
	case 0xc2:
		return false
	case 0xc3:
		return true
	}
	r.fail()
	return false
}

// bytes reads a str or bin value.
func (r *reader) bytes() string {
	c := r.byte()
	if c >= 0xa0 && c <= 0xbf {
		return r.take(uint64(c & 0x1f))
	}
	switch c {
	case 0xd9, 0xc4:
		return r.take(r.uint(1))
	case 0xda, 0xc5:
		return r.take(r.uint(2))
	case 0xdb, 0xc6:
		return r.take(r.uint(4))
	}
	r.fail()
	return ""
}

// mapLen reads a map header.
func (r *reader) mapLen() int {
	c := r.byte()
	switch {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f)
	case c == 0xde:
		return r.count(r.uint(2))
	case c == 0xdf:
		return r.count(r.uint(4))
	}
	r.fail()
	return 0
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

// count bounds an element count by the bytes left (each element takes at
// least one), so that corrupt input cannot ask for a huge allocation.
func (r *reader) count(n uint64) int {
	if n > uint64(len(r.s)-r.pos) {
		r.fail()
		return 0
	}
	return int(n)
}

// maxDepth bounds the nesting skip follows.
const maxDepth = 64

// skip reads and ignores one value of any type (a key a newer version
// wrote).
func (r *reader) skip(depth int) {
	if depth > maxDepth {
		r.fail()
		return
	}
	c := r.peek()
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		r.pos++
	case c >= 0xcc && c <= 0xd3:
		r.integer()
	case c == 0xca:
		r.take(5)
	case c == 0xcb:
		r.take(9)
	case c >= 0xa0 && c <= 0xbf || c == 0xd9 || c == 0xda || c == 0xdb || c == 0xc4 || c == 0xc5 || c == 0xc6:
		r.bytes()
	case c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd:
		for n := r.arrayLen(); n > 0 && r.err == nil; n-- {
			r.skip(depth + 1)
		}
	case c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf:
		for n := r.mapLen(); n > 0 && r.err == nil; n-- {
			r.skip(depth + 1)
			r.skip(depth + 1)
		}
	case c == 0xd4, c == 0xd5, c == 0xd6, c == 0xd7, c == 0xd8: // fixext 1 to 16
		r.take(2 + 1<<(c-0xd4))
	case c == 0xc7, c == 0xc8, c == 0xc9: // ext 8, 16, 32
		r.pos++
		n := r.uint(1 << (c - 0xc7))
		r.take(1 + n)
	default:
		r.fail()
	}
}
