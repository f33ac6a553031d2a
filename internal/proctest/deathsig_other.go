//go:build !linux

package proctest

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// a child sees its stdin close when the test binary dies, unless frozen.
func dieWithParent(*exec.Cmd) {}
