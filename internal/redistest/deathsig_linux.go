package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the server when the test binary
// dies, so a test process killed with SIGKILL leaves no redis-server behind.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
