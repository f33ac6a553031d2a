//go:build race

package hopper_test

// raceDetector reports whether the tests run under the race detector,
// which slows every goroutine switch several times: process-level bounds
// on latency are looser then.
const raceDetector = true
