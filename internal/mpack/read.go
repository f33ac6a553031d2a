package mpack

import (
	"errors"
	"math"
)

// ErrCorrupt is what a Reader reports for bytes that are not the msgpack a
// read expects. Its users report their own error in its place, naming what
// they read.
var ErrCorrupt = errors.New("mpack: corrupt msgpack")

// Reader reads msgpack values from a string without copying it: the
// strings it returns share s's memory. The first problem (a value of
// another type than the read expects, or bytes missing) stops it: every
// later read returns a zero value, and Err reports ErrCorrupt. Its zero
// value reads an empty string. Not safe for concurrent use.
type Reader struct {
	s   string
	pos int
	err error
}

// NewReader returns a Reader of s.
func NewReader(s string) Reader { return Reader{s: s} }

// Err returns ErrCorrupt once a read met a problem, else nil.
func (r *Reader) Err() error { return r.err }

// Pos returns how many bytes of s have been read.
func (r *Reader) Pos() int { return r.pos }

// Len returns how many bytes of s are left to read.
func (r *Reader) Len() int { return len(r.s) - r.pos }

// Rest returns the bytes of s not read yet.
func (r *Reader) Rest() string { return r.s[r.pos:] }

// Advance moves past n bytes read by other means (at most those left).
func (r *Reader) Advance(n int) { r.pos = min(r.pos+n, len(r.s)) }

// Fail stops the reader as corrupt input does.
func (r *Reader) Fail() {
	r.err = ErrCorrupt
	r.pos = len(r.s)
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.pos >= len(r.s) {
		r.Fail()
		return 0
	}
	c := r.s[r.pos]
	r.pos++
	return c
}

// Peek returns the next byte without reading it, or 0xc1 (which starts no
// msgpack value) at the end.
func (r *Reader) Peek() byte {
	if r.pos >= len(r.s) {
		return 0xc1
	}
	return r.s[r.pos]
}

// NextIs reports whether the next byte is c, and reads it if so.
func (r *Reader) NextIs(c byte) bool {
	if r.pos < len(r.s) && r.s[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

// NilNext reports whether the next value is nil, and reads it if so.
func (r *Reader) NilNext() bool { return r.NextIs(Nil) }

// Uint reads an n-byte big-endian unsigned integer (raw bytes, not a
// msgpack value).
func (r *Reader) Uint(n int) uint64 {
	if n > len(r.s)-r.pos {
		r.Fail()
		return 0
	}
	var v uint64
	for i := range n {
		v = v<<8 | uint64(r.s[r.pos+i])
	}
	r.pos += n
	return v
}

// Take reads the next n bytes (raw bytes, not a msgpack value).
func (r *Reader) Take(n uint64) string {
	if n > uint64(len(r.s)-r.pos) {
		r.Fail()
		return ""
	}
	v := r.s[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return v
}

// Integer reads any msgpack integer; big reports an unsigned one above
// MaxInt64, which v then holds as two's complement.
func (r *Reader) Integer() (v int64, big bool) {
	c := r.Byte()
	switch {
	case c <= 0x7f:
		return int64(c), false
	case c >= 0xe0:
		return int64(int8(c)), false
	}
	switch c {
	case 0xcc:
		return int64(r.Uint(1)), false
	case 0xcd:
		return int64(r.Uint(2)), false
	case 0xce:
		return int64(r.Uint(4)), false
	case 0xcf:
		u := r.Uint(8)
		return int64(u), u > math.MaxInt64
	case 0xd0:
		return int64(int8(r.Uint(1))), false
	case 0xd1:
		return int64(int16(r.Uint(2))), false
	case 0xd2:
		return int64(int32(r.Uint(4))), false
	case 0xd3:
		return int64(r.Uint(8)), false
	}
	r.Fail()
	return 0, false
}

// Float reads any msgpack number as a float64.
func (r *Reader) Float() float64 {
	switch {
	case r.NextIs(0xca):
		return float64(math.Float32frombits(uint32(r.Uint(4))))
	case r.NextIs(0xcb):
		return math.Float64frombits(r.Uint(8))
	}
	v, big := r.Integer()
	if big {
		return float64(uint64(v))
	}
	return float64(v)
}

// Bool reads a msgpack boolean.
func (r *Reader) Bool() bool {
	switch r.Byte() {
	case False:
		return false
	case True:
		return true
	}
	r.Fail()
	return false
}

// Str reads a str or a bin value.
func (r *Reader) Str() string {
	c := r.Byte()
	if c >= 0xa0 && c <= 0xbf {
		return r.Take(uint64(c & 0x1f))
	}
	switch c {
	case 0xd9, 0xc4:
		return r.Take(r.Uint(1))
	case 0xda, 0xc5:
		return r.Take(r.Uint(2))
	case 0xdb, 0xc6:
		return r.Take(r.Uint(4))
	}
	r.Fail()
	return ""
}

// MapLen reads a map header: the number of pairs that follow.
func (r *Reader) MapLen() int {
	c := r.Byte()
	switch {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f)
	case c == 0xde:
		return r.count(r.Uint(2))
	case c == 0xdf:
		return r.count(r.Uint(4))
	}
	r.Fail()
	return 0
}

// ArrayLen reads an array header: the number of elements that follow.
func (r *Reader) ArrayLen() int {
	c := r.Byte()
	switch {
	case c >= 0x90 && c <= 0x9f:
		return int(c & 0x0f)
	case c == 0xdc:
		return r.count(r.Uint(2))
	case c == 0xdd:
		return r.count(r.Uint(4))
	}
	r.Fail()
	return 0
}

// count bounds an element count by the bytes left (each element takes at
// least one), so that corrupt input cannot ask for a huge allocation.
func (r *Reader) count(n uint64) int {
	if n > uint64(len(r.s)-r.pos) {
		r.Fail()
		return 0
	}
	return int(n)
}

// MaxDepth bounds the nesting Skip follows, so that corrupt input cannot
// make it recurse once per byte.
const MaxDepth = 64

// Skip reads and ignores one value of any type (a field a newer version
// added).
func (r *Reader) Skip() { r.skip(0) }

func (r *Reader) skip(depth int) {
	if depth > MaxDepth {
		r.Fail()
		return
	}
	c := r.Peek()
	switch {
	case c <= 0x7f || c >= 0xe0 || c == Nil || c == False || c == True:
		r.pos++
	case c >= 0xcc && c <= 0xd3:
		r.Integer()
	case c == 0xca:
		r.Take(5)
	case c == 0xcb:
		r.Take(9)
	case c >= 0xa0 && c <= 0xbf || c == 0xd9 || c == 0xda || c == 0xdb || c == 0xc4 || c == 0xc5 || c == 0xc6:
		r.Str()
	case c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd:
		for n := r.ArrayLen(); n > 0 && r.err == nil; n-- {
			r.skip(depth + 1)
		}
	case c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf:
		for n := r.MapLen(); n > 0 && r.err == nil; n-- {
			r.skip(depth + 1)
			r.skip(depth + 1)
		}
	case c >= 0xd4 && c <= 0xd8: // fixext 1 to 16
		r.Take(2 + 1<<(c-0xd4))
	case c == 0xc7, c == 0xc8, c == 0xc9: // ext 8, 16, 32
		r.pos++
		n := r.Uint(1 << (c - 0xc7))
		r.Take(1 + n)
	default:
		r.Fail()
	}
}
