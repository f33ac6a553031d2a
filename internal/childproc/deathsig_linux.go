package childproc

import (
	"os/exec"
	"syscall"
)

// DieWithParent asks the kernel to kill cmd's process (SIGKILL) when the
// test binary dies, even by SIGKILL: a frozen child, which cannot see its
// stdin close, and a server go too. Call it before cmd.Start.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
