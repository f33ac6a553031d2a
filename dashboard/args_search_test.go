package dashboard_test

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestArgsSearchFindsQuotedText: the args search finds text as it reads
// inside a string value, quotes and all, and text as it reads in the JSON;
// a redacted value is never found; a custom Redact's text is found.
func TestArgsSearchFindsQuotedText(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		c := hopper.NewClient(s, nil)
		enqueue := func(a dashtest.EmailArgs) string {
			info, err := hopper.Enqueue(t.Context(), c, a, nil)
			if err != nil {
				t.Fatal(err)
			}
			return info.ID
		}
		quoted := enqueue(dashtest.EmailArgs{To: `say "bob"`})
		plain := enqueue(dashtest.EmailArgs{To: "bob"})
		secret := enqueue(dashtest.EmailArgs{To: "carol", Password: `say "bob" hunter2`})
		h := newHandler(s, nil)
		found := func(h http.Handler, needle string) []string {
			t.Helper()
			var page struct{ Jobs []struct{ ID string } }
			r := get(t, h, "/api/queues/default/ready?args="+url.QueryEscape(needle))
			if err := json.Unmarshal([]byte(r.Body), &page); err != nil {
				t.Fatalf("search %q: %v\n%s", needle, err, r.Body)
			}
			var ids []string
			for _, j := range page.Jobs {
				ids = append(ids, j.ID)
			}
			slices.Sort(ids)
			return ids
		}
		sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
		for _, c := range []struct {
			needle string
			want   []string
		}{
			{`say "bob"`, sorted(quoted)},    // as the value reads; its JSON reads say \"bob\"
			{`SAY "BOB"`, sorted(quoted)},    // any case
			{`say \"bob\"`, sorted(quoted)},  // as its JSON reads
			{`"bob"`, sorted(quoted, plain)}, // in the value, and in the JSON "to":"bob"
			{`"to":"bob"`, sorted(plain)},    // JSON across key and value
			{"hunter2", nil},                 // redacted
			{`say "bob" hunter2`, nil},       // the whole redacted value
			{"bob", sorted(quoted, plain)},   // a hint the store may use
			{"carol", sorted(secret)},        // another
			{"nobody-has-this", nil},         // and one that finds nothing
		} {
			if got := found(h, c.needle); !slices.Equal(got, c.want) {
				t.Errorf("search %q found %v, want %v", c.needle, got, c.want)
			}
		}
		r := get(t, h, "/queues/default/ready?args="+url.QueryEscape(`say "bob"`))
		wantContains(t, r.Body, "jobs page search for quoted text", quoted)
		wantLacks(t, r.Body, "jobs page search for quoted text", plain, secret)

		// A custom Redact may show text the stored args lack: the store is
		// given no hint it would drop such a job for.
		h = newHandler(s, &dashboard.Config{Redact: func(kind string, v any) any {
			if m, ok := v.(map[string]any); ok && m["to"] == "carol" {
				m["to"] = "someone"
			}
			return v
		}})
		if got := found(h, "someone"); !slices.Equal(got, []string{secret}) {
			t.Errorf("search for the text of a custom Redact found %v, want %v", got, []string{secret})
		}
	})
}

func TestArgsContain(t *testing.T) {
	args := func(v any) any {
		a, err := dashboard.DecodeArgs(mustMarshal(t, v))
		if err != nil {
			t.Fatal(err)
		}
		return dashboard.DefaultRedact("k", a)
	}
	for _, c := range []struct {
		args   any
		needle string
		want   bool
	}{
		{args(map[string]any{"to": `say "bob"`}), `say "bob"`, true},
		{args(map[string]any{"to": `say "bob"`}), `say \"bob\"`, true},
		{args(map[string]any{"to": `say "bob"`}), `SAY "Bob"`, true},
		{args(map[string]any{"to": "bob"}), `"bob"`, true},
		{args(map[string]any{"to": "bob"}), `{"to":"bob"}`, true},
		{args(map[string]any{`a "key"`: 1}), `a "key"`, true},
		{args(map[string]any{"n": []any{"x", map[string]any{"deep": "tab\there"}}}), "tab\there", true},
		{args(map[string]any{"n": []any{"x", map[string]any{"deep": "tab\there"}}}), `tab\there`, true},
		{args(map[string]any{"to": "bob"}), "alice", false},
		{args(map[string]any{"password": `say "bob"`}), `say "bob"`, false},
		{args(map[string]any{"password": `say "bob"`}), "bob", false},
		{args(map[string]any{"password": `say "bob"`}), "[redacted]", true},
		{args(map[string]any{"api_key": map[string]any{"inner": "x"}}), "inner", false},
		{args(map[string]any{"city": "ÉCOLE"}), "école", true},
		{args(map[string]any{"unit": "\u212a"}), "k", false}, // the Kelvin sign is not ASCII k
		{args(map[string]any{"to": "bob"}), "", true},
		{nil, "", true},
		{nil, "null", true},
	} {
		if got := dashboard.ArgsContain(c.args, c.needle); got != c.want {
			t.Errorf("ArgsContain(%#v, %q) = %v, want %v", c.args, c.needle, got, c.want)
		}
	}
}

func TestArgsSearchHint(t *testing.T) {
	for needle, want := range map[string]string{
		"order-42":          "order-42",
		"Order-42":          "order-42",
		"bob@example.com":   "ob@example.com", // "\bob..." is a backspace and "ob..."
		"alice":             "lice",           // "\u001alice" is a control character and "lice"
		"8y":                "y",              // "\u2028y"
		"u2028x":            "x",
		"x:1":               "x:1",
		`say "bob"`:         "", // JSON quotes: `"bob"` finds {"to":"bob"}, whose msgpack has no quote
		"a b":               "",
		`a\b`:               "",
		"":                  "",
		":true":             "", // in {"a":true}
		"tru":               "",
		"null":              "",
		"1e+21":             "", // a float64's JSON
		"42":                "",
		"t10:00":            "", // a time's
		"cafe":              "", // a binary's hex
		"0xff":              "",
		"nan":               "",
		"-inf":              "",
		"redacted":          "",
		"u2028":             "", // all inside an escape
		"u0":                "",
		"\u212aate":         "", // not ASCII
		"école":             "",
		"ok_1/2+3.4@x:y-z.": "ok_1/2+3.4@x:y-z.",
	} {
		if got := dashboard.ArgsSearchHint(needle); got != want {
			t.Errorf("ArgsSearchHint(%q) = %q, want %q", needle, got, want)
		}
	}
}

// FuzzArgsSearchHint checks the hint's promise: whatever args and needle,
// when args redacted by DefaultRedact or NoRedact contain the needle, the
// stored msgpack holds the hint, ASCII case aside (as Redis compares).
func FuzzArgsSearchHint(f *testing.F) {
	at := time.Date(2026, 1, 2, 10, 0, 0, 5, time.UTC)
	for _, c := range []struct {
		args   any
		needle string
	}{
		{map[string]any{"to": `say "bob"`}, `say "bob"`},
		{map[string]any{"to": "bob"}, `"bob"`},
		{map[string]any{"to": "\bob@example.com"}, "bob@example.com"},
		{map[string]any{"to": "\x1alice"}, "alice"},
		{map[string]any{"to": "\u2028x"}, "8x"},
		{map[string]any{"to": "a\xffb"}, "fdb"},
		{map[string]any{"a": true, "b": nil}, ":true"},
		{map[string]any{"f": 1e21, "g": 1e-7, "h": math.Inf(1)}, "e-07"},
		{map[string]any{"t": at}, "t10:00"},
		{map[string]any{"b": []byte{0xca, 0xfe, 0xff}}, "cafe"},
		{map[string]any{"password": "x"}, "redacted"},
		{map[any]any{1: "x", true: "y", 2.5: "z"}, "true"},
		{map[string]any{"unit": "\u212aate"}, "kate"},
		{[]any{"x", map[string]any{"deep": "a\nb"}}, "nb"},
		{map[string]any{"\x10000": 48}, "u0"},
	} {
		f.Add(mustMarshal(f, c.args), c.needle)
	}
	f.Fuzz(func(t *testing.T, b []byte, needle string) {
		v, err := dashboard.DecodeArgs(b)
		if err != nil {
			return
		}
		hint := dashboard.ArgsSearchHint(needle)
		if hint == "" {
			return
		}
		for _, redact := range []dashboard.RedactFunc{dashboard.DefaultRedact, dashboard.NoRedact} {
			if dashboard.ArgsContain(redact("k", v), needle) && !bytes.Contains(asciiLower(b), asciiLower([]byte(hint))) {
				t.Fatalf("args % x contain %q, but hold not its hint %q", b, needle, hint)
			}
		}
	})
}

// asciiLower lower-cases the ASCII letters of b, as Redis's Lua does.
func asciiLower(b []byte) []byte {
	out := bytes.Clone(b)
	for i, c := range out {
		if 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return out
}
