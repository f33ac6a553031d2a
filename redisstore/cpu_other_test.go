//go:build !unix

package redisstore_test

import "time"

// processCPU is 0 where getrusage is missing: the cpu metric reads 0.
func processCPU() time.Duration { return 0 }
