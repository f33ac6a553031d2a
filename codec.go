package hopper

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/msgpackguard"
)

// encodeArgs encodes job arguments with msgpack. Structs are encoded as maps
// keyed by field name (or msgpack tag), so adding or removing a field stays
// compatible with jobs already enqueued. Args nested deeper than
// MaxArgsDepth fail here, at enqueue, rather than at every worker later.
// Errors wrap ErrInvalidJob (see encodeValue).
func encodeArgs(args any) ([]byte, error) {
	return encodeValue("args", args, nil)
}

// encodeArgsIn is encodeArgs writing into dst's memory when the args fit
// in its capacity (dst must then not be written again), else into memory
// of their own.
func encodeArgsIn(args any, dst []byte) ([]byte, error) {
	return encodeValue("args", args, dst)
}

// encodeValue encodes v, a job's args, result or progress data as what
// names it, as encodeArgsIn does. A value msgpack cannot encode (a channel
// or a func in it) and one nested deeper than MaxArgsDepth fail with an
// error wrapping ErrInvalidJob that names what and v's type; for the
// first, msgpack's error is wrapped too.
func encodeValue(what string, v any, dst []byte) ([]byte, error) {
	b, err := marshalIn(v, dst)
	if err != nil {
		return nil, errorf("%w: cannot encode %s of type %T: %w", ErrInvalidJob, what, v, err)
	}
	if err := msgpackguard.Check(b); err != nil {
		return nil, fmt.Errorf("%w: %s of type %T: %v", ErrInvalidJob, what, v, err)
	}
	if len(b) == 1 && b[0] == emptyMap && hidesAllFields(v) {
		return nil, fmt.Errorf("%w: %s of type %T: it has fields but none exported, and msgpack encodes only exported ones, so the handler would get a zero value; export them (or implement msgpack.CustomEncoder)", ErrInvalidJob, what, v)
	}
	return b, nil
}

// emptyMap is msgpack's empty map: what a struct with no field to encode
// comes out as.
const emptyMap = 0x80

// hidesAllFields reports whether v is a struct (or a pointer to one) with
// fields, none of them exported, that encodes itself no other way: msgpack
// drops every field of it, so the value would be lost.
func hidesAllFields(v any) bool {
	t := reflect.TypeOf(v)
	if t == nil {
		return false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.NumField() == 0 {
		return false
	}
	for _, i := range []reflect.Type{customEncoder, msgpackMarshaler} {
		if t.Implements(i) || reflect.PointerTo(t).Implements(i) {
			return false
		}
	}
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			return false
		}
	}
	return true
}

var (
	customEncoder    = reflect.TypeFor[msgpack.CustomEncoder]()
	msgpackMarshaler = reflect.TypeFor[msgpack.Marshaler]()
)

// encodeBuf is a msgpack encoder and its buffer, reused across encodes.
type encodeBuf struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

var encodeBufs = sync.Pool{New: func() any { return &encodeBuf{enc: msgpack.NewEncoder(nil)} }}

// maxPooledBuf bounds the buffer kept for reuse: one huge args value does
// not pin its memory.
const maxPooledBuf = 64 << 10

// marshalIn is msgpack.Marshal (the same encoder settings) with a reused
// buffer, written into dst's memory when the encoding fits in its
// capacity (the result's capacity is then its length, so that an append
// to it copies), else into one allocation of its own.
func marshalIn(v any, dst []byte) ([]byte, error) {
	e := encodeBufs.Get().(*encodeBuf)
	e.buf.Reset()
	e.enc.Reset(&e.buf) // default settings, as Marshal: a MarshalMsgpack may have changed them
	err := e.enc.Encode(v)
	var b []byte
	if err == nil {
		if n := e.buf.Len(); n <= cap(dst) {
			b = append(dst[:0], e.buf.Bytes()...)[:n:n]
		} else {
			b = bytes.Clone(e.buf.Bytes())
		}
	}
	if e.buf.Cap() <= maxPooledBuf {
		encodeBufs.Put(e)
	}
	return b, err
}

// decodeArgs decodes b into v, a pointer to the handler's argument type.
// The bytes come from the store, so they may be anything: msgpackguard
// rejects headers that claim more than b holds and nesting deeper than
// MaxArgsDepth before msgpack v5, which allocates what headers claim when
// it decodes into slices, maps and interfaces, sees them. Allocation stays
// proportional to len(b). Errors wrap ErrDecode ("hopper: cannot decode
// args: ..."), and so does a panic in msgpack v5: it panics on some
// well-formed input (a map repeating a key whose field is an interface
// holding a value), and a value that cannot be decoded must not be
// retried like a handler's panic.
func decodeArgs(b []byte, v any) error {
	if err := decodeMsgpack(b, v); err != nil {
		return fmt.Errorf("%w args: %v", ErrDecode, err)
	}
	return nil
}

// decodeResult decodes b, the result of what (`job "x" of queue "q"`),
// into an R, as decodeArgs decodes args. Errors wrap ErrDecode: "hopper:
// cannot decode result of <what> into <R>: <why>"; the R is then zero.
func decodeResult[R any](b []byte, what string) (R, error) {
	var v R
	if err := decodeMsgpack(b, &v); err != nil {
		var zero R
		return zero, fmt.Errorf("%w result of %s into %v: %v", ErrDecode, what, reflect.TypeFor[R](), err)
	}
	return v, nil
}

// decodeMsgpack is decodeArgs and decodeResult without ErrDecode: the
// error says why b did not decode into v.
func decodeMsgpack(b []byte, v any) (err error) {
	if err := msgpackguard.Check(b); err != nil {
		return err
	}
	d := decodeBufs.Get().(*decodeBuf)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("msgpack panicked: %v", p)
			return // d's state is unknown: not reused
		}
		d.rd.Reset(nil)
		decodeBufs.Put(d)
	}()
	// As msgpack.Unmarshal, without its reader's allocation.
	d.rd.Reset(b)
	d.dec.Reset(&d.rd)
	d.dec.UsePreallocateValues(true)
	return d.dec.Decode(v)
}

// decodeBuf is a msgpack decoder and its reader, reused across decodes.
type decodeBuf struct {
	rd  bytes.Reader
	dec *msgpack.Decoder
}

var decodeBufs = sync.Pool{New: func() any { return &decodeBuf{dec: msgpack.NewDecoder(nil)} }}
