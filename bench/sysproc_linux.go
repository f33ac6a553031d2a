package main

import "syscall"

// childProcAttr makes the kernel kill redis-server when this process dies,
// even if it dies without running its clean-up (SIGKILL, a crash). The
// signal is tied to the OS thread that started the child, which lives as
// long as the process: Go ends a thread only when a goroutine exits while
// locked to it, and this program locks none.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
