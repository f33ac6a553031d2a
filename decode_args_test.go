package hopper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestDecodeArgs: a job's args, as the Inspector returns them, decode
// into their type; a job of another kind, args that do not decode and a
// nil record are errors wrapping ErrDecode (but the nil record) that name
// the job and the type. Inspector users decoded with msgpack themselves,
// past the guards a worker decodes with.
func TestDecodeArgs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		c := hopper.NewClient(st, nil)
		info, err := hopper.Enqueue(ctx, c, Echo{Msg: "hello"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := hopper.NewInspector(st).GetJob(ctx, info.Queue, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		a, err := hopper.DecodeArgs[Echo](rec)
		if err != nil || a.Msg != "hello" {
			t.Fatalf("DecodeArgs[Echo]: %+v, %v; want Msg hello", a, err)
		}
		if _, err := hopper.DecodeArgs[Tick](rec); !errors.Is(err, hopper.ErrDecode) || !strings.Contains(err.Error(), info.ID) ||
			!strings.Contains(err.Error(), `of kind "echo", not "tick"`) {
			t.Fatalf("DecodeArgs of another kind: %v; want ErrDecode naming the job and both kinds", err)
		}
		bad := *rec
		bad.Args = []byte{0xdc, 0xff, 0xff} // an array header that claims 65,535 items
		if _, err := hopper.DecodeArgs[Echo](&bad); !errors.Is(err, hopper.ErrDecode) || !strings.Contains(err.Error(), "hopper_test.Echo") {
			t.Fatalf("DecodeArgs of args that do not decode: %v; want ErrDecode naming the type", err)
		}
		if _, err := hopper.DecodeArgs[Echo](nil); err == nil {
			t.Fatal("DecodeArgs of a nil record: no error")
		}
	})
}
