//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user plus system CPU time this process has used
// (getrusage), for benchmarks that report client CPU per job; 0 when the
// call fails. Safe for concurrent use.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
