package msgpackguard

import (
	"errors"
	"fmt"
)

// MaxDepth is how deep arrays and maps may nest: a top-level array holding
// an array is depth 2. A scalar at the top level is depth 0.
const MaxDepth = 64

// Errors Check returns, wrapped with the offset where the problem was found.
var (
	// ErrTruncated: a header claims more bytes or elements than remain.
	ErrTruncated = errors.New("msgpack: value is truncated or claims more than the input holds")
	// ErrTooDeep: arrays and maps nest deeper than MaxDepth.
	ErrTooDeep = fmt.Errorf("msgpack: nested deeper than %d", MaxDepth)
	// ErrTrailing: bytes follow the one value.
	ErrTrailing = errors.New("msgpack: trailing bytes after the value")
	// ErrInvalid: a byte that no msgpack value starts with (0xc1).
	ErrInvalid = errors.New("msgpack: invalid type byte")
)

// Check returns nil when b is exactly one well-formed msgpack value nested
// at most MaxDepth deep, and an error wrapping ErrTruncated, ErrTooDeep,
// ErrTrailing or ErrInvalid otherwise. Empty input is ErrTruncated. Check
// does not allocate unless it fails, takes time linear in len(b), and is
// safe for concurrent use.
func Check(b []byte) error {
	w := walker{b: b}
	if err := w.value(0); err != nil {
		return err
	}
	if w.pos != len(b) {
		return fmt.Errorf("%w: %d bytes at offset %d", ErrTrailing, len(b)-w.pos, w.pos)
	}
	return nil
}

// walker reads msgpack headers from b.
type walker struct {
	b   []byte
	pos int
}

func (w *walker) truncated(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrTruncated, what, w.pos)
}

// uint reads an n-byte big-endian length.
func (w *walker) uint(n int) (uint64, bool) {
	if len(w.b)-w.pos < n {
		return 0, false
	}
	var v uint64
	for _, c := range w.b[w.pos : w.pos+n] {
		v = v<<8 | uint64(c)
	}
	w.pos += n
	return v, true
}

// skip moves past n payload bytes.
func (w *walker) skip(n uint64) bool {
	if n > uint64(len(w.b)-w.pos) {
		return false
	}
	w.pos += int(n)
	return true
}

// value walks one value whose containers sit depth levels deep.
func (w *walker) value(depth int) error {
	if w.pos >= len(w.b) {
		return w.truncated("missing value")
	}
	c := w.b[w.pos]
	w.pos++
	switch {
	case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3:
		return nil // fixint, nil, bool
	case c >= 0xa0 && c <= 0xbf:
		return w.payload(uint64(c&0x1f), "string")
	case c >= 0x90 && c <= 0x9f:
		return w.elems(uint64(c&0x0f), 1, depth)
	case c >= 0x80 && c <= 0x8f:
		return w.elems(uint64(c&0x0f), 2, depth)
	}
	switch c {
	case 0xcc, 0xd0:
		return w.fixed(1)
	case 0xcd, 0xd1:
		return w.fixed(2)
	case 0xce, 0xd2, 0xca:
		return w.fixed(4)
	case 0xcf, 0xd3, 0xcb:
		return w.fixed(8)
	case 0xd4:
		return w.fixed(1 + 1) // fixext: type byte and payload
	case 0xd5:
		return w.fixed(1 + 2)
	case 0xd6:
		return w.fixed(1 + 4)
	case 0xd7:
		return w.fixed(1 + 8)
	case 0xd8:
		return w.fixed(1 + 16)
	case 0xc4, 0xd9:
		return w.sized(1, 0, "string or binary")
	case 0xc5, 0xda:
		return w.sized(2, 0, "string or binary")
	case 0xc6, 0xdb:
		return w.sized(4, 0, "string or binary")
	case 0xc7:
		return w.sized(1, 1, "extension")
	case 0xc8:
		return w.sized(2, 1, "extension")
	case 0xc9:
		return w.sized(4, 1, "extension")
	case 0xdc, 0xde:
		n, ok := w.uint(2)
		if !ok {
			return w.truncated("length")
		}
		return w.elems(n, int(c-0xdc)/2+1, depth) // 0xdc array, 0xde map
	case 0xdd, 0xdf:
		n, ok := w.uint(4)
		if !ok {
			return w.truncated("length")
		}
		return w.elems(n, int(c-0xdd)/2+1, depth) // 0xdd array, 0xdf map
	}
	return fmt.Errorf("%w: 0x%02x at offset %d", ErrInvalid, c, w.pos-1)
}

func (w *walker) fixed(n uint64) error { return w.payload(n, "number or extension") }

func (w *walker) payload(n uint64, what string) error {
	if !w.skip(n) {
		return w.truncated(fmt.Sprintf("%s of %d bytes", what, n))
	}
	return nil
}

// sized walks a value with an lenBytes-byte length and extra header bytes
// (the extension type) before its payload.
func (w *walker) sized(lenBytes int, extra uint64, what string) error {
	n, ok := w.uint(lenBytes)
	if !ok {
		return w.truncated("length")
	}
	return w.payload(n+extra, what)
}

// elems walks the n entries of an array (per 1) or map (per 2) at depth.
func (w *walker) elems(n uint64, per int, depth int) error {
	if depth+1 > MaxDepth {
		return fmt.Errorf("%w at offset %d", ErrTooDeep, w.pos)
	}
	if n*uint64(per) > uint64(len(w.b)-w.pos) { // every value takes a byte at least
		return w.truncated(fmt.Sprintf("container of %d entries", n))
	}
	for i := uint64(0); i < n*uint64(per); i++ {
		if err := w.value(depth + 1); err != nil {
			return err
		}
	}
	return nil
}
