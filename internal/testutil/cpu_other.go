//go:build !unix

package testutil

import "time"

// ProcessCPU is 0 where getrusage is missing: a client-CPU metric reads 0.
func ProcessCPU() time.Duration { return 0 }
