//go:build race

package testutil

// Race reports whether the tests run under the race detector, which slows
// every goroutine switch several times: process-level bounds on latency
// are looser then.
const Race = true
