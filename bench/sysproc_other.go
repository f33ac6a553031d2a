//go:build !linux

package main

import "syscall"

// childProcAttr returns nil: outside Linux there is no parent-death
// signal, so redis-server is stopped only by this program's clean-up.
func childProcAttr() *syscall.SysProcAttr {
	return nil
}
