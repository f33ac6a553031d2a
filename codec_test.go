package hopper

import (
	"bytes"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// tweakingArgs changes the settings of the encoder and decoder it is given,
// as a custom codec may: encodeArgs and decodeArgs reuse theirs, and the
// next args must not see the change.
type tweakingArgs struct{ N int64 }

func (a tweakingArgs) EncodeMsgpack(enc *msgpack.Encoder) error {
	enc.UseCompactInts(true)
	enc.SetCustomStructTag("json")
	return enc.EncodeInt(a.N)
}

func (a *tweakingArgs) DecodeMsgpack(dec *msgpack.Decoder) error {
	dec.DisallowUnknownFields(true)
	var err error
	a.N, err = dec.DecodeInt64()
	return err
}

type plainArgs struct {
	A int64  `json:"renamed"`
	B string `msgpack:"b"`
}

// TestCodecReuseKeepsDefaults: args encode and decode exactly as
// msgpack.Marshal and msgpack.Unmarshal would, whatever the args encoded or
// decoded before did to the reused encoder and decoder.
func TestCodecReuseKeepsDefaults(t *testing.T) {
	want, err := msgpack.Marshal(plainArgs{A: 1 << 40, B: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := encodeArgs(tweakingArgs{N: 7}); err != nil {
			t.Fatal(err)
		}
		got, err := encodeArgs(plainArgs{A: 1 << 40, B: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("after a custom encoder: % x, want % x (msgpack.Marshal)", got, want)
		}
		var tw tweakingArgs
		if err := decodeArgs(mustEncode(t, tweakingArgs{N: 7}), &tw); err != nil || tw.N != 7 {
			t.Fatalf("custom decode: %v, %v", tw, err)
		}
		// An unknown field is ignored by default: the custom decoder's
		// DisallowUnknownFields must not stay on.
		extra, err := msgpack.Marshal(map[string]any{"A": 3, "b": "y", "unknown": 1})
		if err != nil {
			t.Fatal(err)
		}
		var p plainArgs
		if err := decodeArgs(extra, &p); err != nil || p.A != 3 || p.B != "y" {
			t.Fatalf("after a custom decoder: %+v, %v; want {A:3 B:y}", p, err)
		}
	}
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := encodeArgs(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
