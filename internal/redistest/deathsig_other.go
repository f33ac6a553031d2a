//go:build !linux

package redistest

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// a killed test binary may leave its redis-server running there.
func dieWithParent(*exec.Cmd) {}
