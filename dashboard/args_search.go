package dashboard

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ArgsContain reports whether args contain needle, any case. args is a
// value as DecodeArgs returns it, after redaction. needle is looked for in
// two places:
//
//   - the compact JSON text of args, as the dashboard shows it: `"bob"`,
//     quotes and all, finds {"to": "bob"};
//   - every string key and string value as it is, unescaped: `say "bob"`
//     finds {"to": "say \"bob\""}, whose JSON reads say \"bob\".
//
// A value the redaction replaced is matched only as its replacement
// ("[redacted]"), so a search never reveals it. Case is folded to Unicode
// lower case, except that no other character folds into an ASCII one (the
// Kelvin sign stays apart from k), as the stores fold the hint
// ArgsSearchHint gives. The empty needle matches any args. The dashboard's
// args search and `hopper jobs list --search` both match with it.
func ArgsContain(args any, needle string) bool {
	n := fold(needle)
	return strings.Contains(fold(jsonText(args, false)), n) || stringsContain(args, n)
}

// stringsContain reports whether a string key or string value of v, folded,
// holds n.
func stringsContain(v any, n string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(fold(v), n)
	case map[string]any:
		for k, e := range v {
			if strings.Contains(fold(k), n) || stringsContain(e, n) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if stringsContain(e, n) {
				return true
			}
		}
	}
	return false
}

// fold lower-cases s for ArgsContain: ASCII as ASCII, other characters to
// their Unicode lower case unless that is ASCII.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}
		if l := unicode.ToLower(r); l >= utf8.RuneSelf {
			return l
		}
		return r
	}, s)
}

// ArgsSearchHint returns the text hopper.SearchJobsOpts.Text may carry for
// an args search with ArgsContain for needle, or "" when no text is safe:
// every job whose args, redacted by DefaultRedact or NoRedact, contain
// needle holds the hint in its stored args, whose strings msgpack keeps
// as they are. With another RedactFunc, which may show text the stored
// args do not hold, send no hint.
//
// It is "" unless needle is ASCII letters, digits and _.-@:/+ (no quote
// or escape of JSON), and "" when needle may come from JSON itself rather
// than from a string of the args: a leading ':', a number, true, false,
// null, the text DecodeArgs makes (times, "0x" and hex for binary, NaN,
// +Inf, -Inf) and "[redacted]". A needle that may start inside a JSON
// escape loses that start: "bob" is found in the JSON "\bob" of a
// backspace and "ob", so its hint is "ob".
func ArgsSearchHint(needle string) string {
	n := fold(needle)
	if n == "" || n[0] == ':' {
		return ""
	}
	for _, c := range []byte(n) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && !strings.ContainsRune("_.-@:/+", rune(c)) {
			return ""
		}
	}
	if onlyOf(n, "0123456789.+-e") || onlyOf(n, "0123456789-:.tz") || onlyOf(n, "0123456789abcdefx") {
		return "" // a number, a time or a binary's hex
	}
	for _, made := range []string{"true", "false", "null", "nan", "+inf", "-inf", "[redacted]"} {
		if strings.Contains(made, n) {
			return ""
		}
	}
	for _, t := range escapeTails {
		if strings.Contains(t, n) {
			return "" // n may lie within an escape
		}
	}
	for l := min(len(n), maxEscapeTail); l > 0; l-- {
		if escapeTailEnds[n[:l]] {
			return n[l:]
		}
	}
	return n
}

// onlyOf reports whether every byte of s is one of chars.
func onlyOf(s, chars string) bool {
	for _, c := range []byte(s) {
		if strings.IndexByte(chars, c) < 0 {
			return false
		}
	}
	return true
}

// escapeTails are what follows the backslash of an escape in the JSON of a
// string, as jsonText writes it: \b \f \n \r \t, \u00XX for other control
// characters, \u2028, \u2029 and \ufffd for invalid UTF-8. A needle may lie
// within one ("u0" is in the JSON "\u0010" of "\x10") or start inside one
// ("8y" is in the JSON "\u2028y" of a string that holds no "8y").
var escapeTails = func() []string {
	tails := []string{"b", "f", "n", "r", "t", "u2028", "u2029", "ufffd"}
	for c := range 0x20 {
		tails = append(tails, fmt.Sprintf("u%04x", c))
	}
	return tails
}()

// maxEscapeTail is the length of the longest of escapeTails.
const maxEscapeTail = 5

// escapeTailEnds holds every end of every one of escapeTails: "u2028",
// "2028", "028", "28", "8" and so on.
var escapeTailEnds = func() map[string]bool {
	ends := make(map[string]bool)
	for _, t := range escapeTails {
		for i := range t {
			ends[t[i:]] = true
		}
	}
	return ends
}()

// builtinRedact reports whether f is DefaultRedact or NoRedact, which show
// no text the args do not hold but "[redacted]" (see ArgsSearchHint).
func builtinRedact(f RedactFunc) bool {
	p := reflect.ValueOf(f).Pointer()
	return p == reflect.ValueOf(DefaultRedact).Pointer() || p == reflect.ValueOf(NoRedact).Pointer()
}
