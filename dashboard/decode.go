package dashboard

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/msgpackguard"
)

// maxDecodeDepth bounds the nesting of maps and arrays DecodeArgs follows
// (msgpackguard.Check enforces the same bound first).
const maxDecodeDepth = msgpackguard.MaxDepth

// DecodeArgs decodes msgpack bytes, as hopper stores job args and results,
// into values encoding/json marshals: map[string]any, []any, string, int64,
// uint64, float64, bool and nil. Map keys that are not strings become their
// JSON text (1, true); binary strings become text when they are valid UTF-8
// and "0x" followed by hex otherwise; timestamps become RFC 3339 strings;
// NaN and infinities become the strings "NaN", "+Inf" and "-Inf". Empty
// input decodes to nil.
//
// It never panics and allocates in proportion to the input, whatever
// lengths the input claims; input that is not one well-formed msgpack value
// (truncated, trailing bytes, an unknown extension, nesting deeper than 64)
// gives an error. It is safe for concurrent use.
func DecodeArgs(b []byte) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	// Check first: msgpack v5 allocates what string, binary and extension
	// headers claim (in 1 MiB steps) before it finds the input short.
	if err := msgpackguard.Check(b); err != nil {
		return nil, err
	}
	r := bytes.NewReader(b)
	dec := msgpack.NewDecoder(r)
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if n := r.Len(); n > 0 {
		return nil, fmt.Errorf("msgpack: %d trailing bytes after the value", n)
	}
	return v, nil
}

// decodeValue decodes one value. Maps and arrays grow as their elements
// arrive, so a huge claimed length fails at the end of input instead of
// allocating up front.
func decodeValue(d *msgpack.Decoder, depth int) (any, error) {
	if depth > maxDecodeDepth {
		return nil, fmt.Errorf("msgpack: nested deeper than %d", maxDecodeDepth)
	}
	c, err := d.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		return decodeMap(d, depth)
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := d.DecodeArrayLen()
		if err != nil || n < 0 {
			return nil, err
		}
		out := make([]any, 0, min(n, 64))
		for range n {
			v, err := decodeValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case msgpcode.IsBin(c):
		b, err := d.DecodeBytes()
		if err != nil {
			return nil, err
		}
		if utf8.Valid(b) {
			return string(b), nil
		}
		return "0x" + hex.EncodeToString(b), nil
	}
	v, err := d.DecodeInterfaceLoose()
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.FormatFloat(v, 'g', -1, 64), nil
		}
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano), nil
	}
	return v, nil
}

// decodeMap decodes a map with keys of any type into map[string]any.
func decodeMap(d *msgpack.Decoder, depth int) (any, error) {
	n, err := d.DecodeMapLen()
	if err != nil || n < 0 {
		return nil, err
	}
	out := make(map[string]any, min(n, 64))
	for range n {
		k, err := decodeValue(d, depth+1)
		if err != nil {
			return nil, err
		}
		v, err := decodeValue(d, depth+1)
		if err != nil {
			return nil, err
		}
		out[keyString(k)] = v
	}
	return out, nil
}

// keyString returns a map key as a string: strings as they are, anything
// else as its compact JSON text.
func keyString(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	return jsonText(k, false)
}

// jsonText marshals v as JSON without HTML escaping (templates escape for
// their context), indented or compact. It falls back to %v for a value
// JSON cannot hold, which DecodeArgs never returns.
func jsonText(v any, indent bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}

// maxHexDump bounds the bytes shown of a value that does not decode.
const maxHexDump = 4096

// decoded is a msgpack value prepared for display: its JSON text, or the
// decode error and a hex dump of the bytes.
type decoded struct {
	Value   any    // decoded and redacted; nil when Err is set
	JSON    string // indented JSON of Value
	Compact string // one-line JSON of Value
	Err     string // why the bytes did not decode
	// TooLarge says the bytes are over maxShownValue: not decoded, Hex
	// holds the first of them.
	TooLarge bool
	Hex      string // hex dump of the first bytes when Err or TooLarge is set
	Size     int    // length of the encoded bytes
	Empty    bool   // there were no bytes at all
}

// maxShownValue bounds the encoded args (or result) a page decodes and
// shows: beyond it a page shows the size and the first bytes. A 100 MB
// job's page was 400 MB of HTML, and a 600 MB one ran the process out of
// memory. The JSON API (/api/jobs/...) and Inspector.GetJob give them
// whole.
const maxShownValue = 256 << 10

// decodeFor decodes b and applies the redaction hook for kind.
func (d *dash) decodeFor(kind string, b []byte) decoded {
	out := decoded{Size: len(b), Empty: len(b) == 0}
	if len(b) > maxShownValue {
		out.TooLarge, out.Hex = true, hex.Dump(b[:maxHexDump])
		return out
	}
	v, err := DecodeArgs(b)
	if err != nil {
		out.Err = err.Error()
		dump := b
		if len(dump) > maxHexDump {
			dump = dump[:maxHexDump]
		}
		out.Hex = hex.Dump(dump)
		return out
	}
	out.Value = d.redact(kind, v)
	out.JSON = jsonText(out.Value, true)
	out.Compact = jsonText(out.Value, false)
	return out
}

// redact runs the redaction hook, which is user code: a panic in it must
// not leak the unredacted value, so it yields a placeholder instead.
func (d *dash) redact(kind string, v any) (out any) {
	defer func() {
		if p := recover(); p != nil {
			d.cfg.Logger.Error("dashboard: Config.Redact panicked", "kind", kind, "panic", fmt.Sprint(p))
			out = redactedValue
		}
	}()
	return d.cfg.Redact(kind, v)
}

// argsMatch is the exact check of an args search for needle: the job's
// args decode and, redacted, contain needle (ArgsContain). Args that do
// not decode match no search.
func (d *dash) argsMatch(needle string) func(*hopper.JobRecord) bool {
	return func(j *hopper.JobRecord) bool {
		v, err := DecodeArgs(j.Args)
		return err == nil && ArgsContain(d.redact(j.Kind, v), needle)
	}
}
