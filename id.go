package hopper

import (
	"math/rand/v2"
	"time"
)

// idAlphabet is Crockford's base32 in lower case; its ASCII order matches
// the value order, so IDs sort by creation time.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// idLen is the length of a generated job ID: 10 characters of millisecond
// time (50 bits) and 10 of randomness (50 bits).
const idLen = 20

// newID returns a job ID that sorts by creation time: 20 characters, the
// first 10 the Unix time in milliseconds, the rest random. Two IDs made in
// the same millisecond collide with probability 2^-50.
func newID(now time.Time) string {
	var b [idLen]byte
	ms := uint64(now.UnixMilli())
	for i := 9; i >= 0; i-- {
		b[i] = idAlphabet[ms&31]
		ms >>= 5
	}
	r := rand.Uint64()
	for i := idLen - 1; i >= 10; i-- {
		b[i] = idAlphabet[r&31]
		r >>= 5
	}
	return string(b[:])
}
