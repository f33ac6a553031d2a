package dashboard

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEscapeTailEnds: every escape jsonText writes in a string, for any
// byte and any character, is one ArgsSearchHint knows a needle may start
// inside.
func TestEscapeTailEnds(t *testing.T) {
	var s strings.Builder
	for b := range 256 {
		s.WriteByte(byte(b))
	}
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		s.WriteRune(r) // surrogates become U+FFFD
	}
	text := jsonText(s.String(), false)
	n := 0
	for i := strings.IndexByte(text, '\\'); i >= 0; i = strings.IndexByte(text, '\\') {
		tail := text[i+1 : i+2]
		if tail == "u" {
			tail = text[i+1 : i+6]
		}
		if tail != `"` && tail != `\` && !escapeTailEnds[tail] {
			t.Errorf("jsonText writes the escape \\%s, which escapeTailEnds lacks", tail)
		}
		n++
		text = text[i+1+len(tail):]
	}
	if n < 32 {
		t.Fatalf("found %d escapes, want at least one per control character", n)
	}
}

func TestBuiltinRedact(t *testing.T) {
	if !builtinRedact(DefaultRedact) || !builtinRedact(NoRedact) {
		t.Error("DefaultRedact or NoRedact is not built in")
	}
	if builtinRedact(func(kind string, v any) any { return v }) {
		t.Error("a custom RedactFunc is built in")
	}
}
