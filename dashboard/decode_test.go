package dashboard_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/dashboard"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeArgs(t *testing.T) {
	type inner struct{ N int }
	cases := []struct {
		name string
		in   any
		want any
	}{
		{"struct", struct {
			To   string
			Tags []string
			In   inner
		}{"a@b.c", []string{"x"}, inner{3}}, map[string]any{"To": "a@b.c", "Tags": []any{"x"}, "In": map[string]any{"N": int64(3)}}},
		{"non-string keys", map[int]string{1: "one", -2: "minus two"}, map[string]any{"1": "one", "-2": "minus two"}},
		{"bool keys", map[bool]int{true: 1}, map[string]any{"true": int64(1)}},
		{"binary text", []byte("hello"), "hello"},
		{"binary", []byte{0xff, 0x00}, "0xff00"},
		{"uint64", uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{"float", 1.5, 1.5},
		{"NaN", math.NaN(), "NaN"},
		{"infinity", math.Inf(-1), "-Inf"},
		{"time", time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC), "2026-11-22T03:04:05Z"},
		{"nil", nil, nil},
		{"nested nil map", map[string]any{"m": map[string]any(nil)}, map[string]any{"m": nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := dashboard.DecodeArgs(mustMarshal(t, c.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("the result does not marshal as JSON: %v", err)
			}
		})
	}
	if v, err := dashboard.DecodeArgs(nil); v != nil || err != nil {
		t.Errorf("DecodeArgs(nil) = %v, %v; want nil, nil", v, err)
	}
}

func TestDecodeArgsRejects(t *testing.T) {
	deep := []byte{}
	for range 100 {
		deep = append(deep, 0x91) // fixarray of one element
	}
	deep = append(deep, 0xc0)
	for name, in := range map[string][]byte{
		"never used code":     {0xc1},
		"truncated string":    {0xa5, 'a', 'b'},
		"trailing bytes":      {0xc0, 0xc0},
		"huge claimed map":    {0xdf, 0xff, 0xff, 0xff, 0xff},
		"huge claimed string": {0xdb, 0xff, 0xff, 0xff, 0xff, 'x'},
		"unknown extension":   {0xd4, 0x42, 0x00},
		"too deep":            deep,
	} {
		t.Run(name, func(t *testing.T) {
			if v, err := dashboard.DecodeArgs(in); err == nil {
				t.Errorf("DecodeArgs(% x) = %v, want an error", in, v)
			}
		})
	}
}

func TestDefaultRedact(t *testing.T) {
	in := map[string]any{
		"to": "a@b.c", "Password": "p", "db_password": "p", "api_key": "k", "apiKey": "k", "X-Api-Key": "k",
		"access_token": "t", "Authorization": "Bearer x", "client_secret": "s", "passwd": "p",
		"nested":  map[string]any{"list": []any{map[string]any{"token": "t", "id": int64(1)}}},
		"secrets": map[string]any{"whole": "map"},
		"count":   int64(3),
	}
	want := map[string]any{
		"to": "a@b.c", "Password": "[redacted]", "db_password": "[redacted]", "api_key": "[redacted]", "apiKey": "[redacted]",
		"X-Api-Key": "[redacted]", "access_token": "[redacted]", "Authorization": "[redacted]", "client_secret": "[redacted]",
		"passwd":  "[redacted]",
		"nested":  map[string]any{"list": []any{map[string]any{"token": "[redacted]", "id": int64(1)}}},
		"secrets": "[redacted]",
		"count":   int64(3),
	}
	got := dashboard.DefaultRedact("any", in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultRedact:\n got %#v\nwant %#v", got, want)
	}
	if in["Password"] != "p" {
		t.Error("DefaultRedact changed its input")
	}
	for _, v := range []any{nil, "password", int64(1), []any{"token"}} {
		if got := dashboard.DefaultRedact("k", v); !reflect.DeepEqual(got, v) {
			t.Errorf("DefaultRedact(%#v) = %#v; values without keys stay", v, got)
		}
	}
	if got := dashboard.NoRedact("k", in); !reflect.DeepEqual(got, in) {
		t.Error("NoRedact changed the value")
	}
}
