package hopper

import (
	"math/rand/v2"
	"time"
)

// BackoffFunc returns how long a job waits in retry after its attempt-th
// attempt (from 1) failed with err.
type BackoffFunc func(attempt int, err error) time.Duration

// DefaultBackoff waits 2^attempt seconds (2 s, 4 s, 8 s, ...), capped at one
// hour, each time scaled by a random factor in [0.75, 1.25) so that jobs that
// failed together do not retry together. With the default 25 retries a job
// keeps retrying for about 15 hours before it goes to garbage.
func DefaultBackoff(attempt int, _ error) time.Duration {
	const maxDelay = time.Hour
	d := maxDelay
	if attempt < 12 { // 2^12 s > 1 h
		d = time.Duration(1<<max(attempt, 1)) * time.Second
	}
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}
