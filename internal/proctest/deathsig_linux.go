package proctest

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the child (SIGKILL) when the test
// binary dies: a frozen child, which cannot see its stdin close, goes too.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
