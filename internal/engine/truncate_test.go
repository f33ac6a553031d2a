package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// An error text longer than the limit is cut at a character's start: one
// cut in the middle of "日" stored invalid UTF-8.
func TestTruncateKeepsUTF8(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", maxErrorText-1) + "日本",
		strings.Repeat("a", maxErrorText-2) + "日本",
		strings.Repeat("日", maxErrorText),
		strings.Repeat("a", maxErrorText+1),
	} {
		got := truncate(s, maxErrorText)
		cut := strings.TrimSuffix(got, "… (truncated)")
		if !utf8.ValidString(got) || len(cut) > maxErrorText || !strings.HasPrefix(s, cut) || len(cut) < maxErrorText-utf8.UTFMax {
			t.Errorf("truncate of %d bytes: %d bytes kept (valid UTF-8: %v), want a valid prefix of at most %d", len(s), len(cut), utf8.ValidString(got), maxErrorText)
		}
	}
	if got := truncate("short", maxErrorText); got != "short" {
		t.Errorf("truncate(short) = %q", got)
	}
}
