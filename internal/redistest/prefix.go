package redistest

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

var prefixSeq atomic.Uint64

// Prefix returns a key prefix no other test uses, on this server or on a
// server shared with other test binaries: a hint of t's name, the process
// ID and a counter, made of letters, digits, '-' and '.' only (valid as a
// redisstore Prefix: no braces, colons or spaces).
func Prefix(t testing.TB) string {
	hint := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, t.Name())
	if len(hint) > 24 {
		hint = hint[len(hint)-24:]
	}
	return fmt.Sprintf("t%s-%d.%d", hint, os.Getpid(), prefixSeq.Add(1))
}
