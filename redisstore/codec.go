package redisstore

import (
	"errors"

	"github.com/hopperq/hopper/internal/mpack"
)

// The store's msgpack (envelope.go, history.go, progress.go, events.go,
// wait_job.go) is written with internal/mpack's Append functions and read
// with reader, mpack's Reader made lenient for what Lua's cmsgpack writes.

// errCorrupt is returned for bytes that do not have the expected shape.
var errCorrupt = errors.New("redisstore: corrupt stored data")

// reader is an mpack.Reader whose int, bytes, mapLen, listLen and float
// take what Lua's cmsgpack writes for the values the scripts record: nil
// for zero, "" or an empty map; a number as a float when it is not
// integral; an empty table as an empty map.
type reader struct{ mpack.Reader }

// newReader returns a reader of s.
func newReader(s string) reader { return reader{mpack.NewReader(s)} }

// err returns errCorrupt once a read met a problem, else nil.
func (r *reader) err() error {
	if r.Err() != nil {
		return errCorrupt
	}
	return nil
}

// int reads any msgpack integer, an integral float, or nil as 0.
func (r *reader) int() int64 {
	switch r.Peek() {
	case mpack.Nil:
		r.Byte()
		return 0
	case 0xca, 0xcb:
		return int64(r.Float())
	}
	v, _ := r.Integer()
	return v
}

// float reads any msgpack number, or nil as 0.
func (r *reader) float() float64 {
	if r.NilNext() {
		return 0
	}
	return r.Float()
}

// bytes reads a str or bin value, or nil as "".
func (r *reader) bytes() string {
	if r.NilNext() {
		return ""
	}
	return r.Str()
}

// mapLen reads a map header, or nil as an empty map.
func (r *reader) mapLen() int {
	if r.NilNext() {
		return 0
	}
	return r.MapLen()
}

// listLen reads an array header, or the header of an empty map (what Lua's
// cmsgpack writes for an empty table).
func (r *reader) listLen() int {
	if r.NextIs(0x80) {
		return 0
	}
	return r.ArrayLen()
}
