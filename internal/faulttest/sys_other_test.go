//go:build !linux

package faulttest

import "errors"

// widenLedgerPipe is not available here: a worker's ledger goes through a
// pipe of the system's default size (see the Linux version).
func widenLedgerPipe() (int, error) {
	return 0, errors.New("the size of a pipe is fixed on this system")
}

// isDead cannot tell here whether pid ended (known is false).
func isDead(int) (dead, known bool) { return false, false }
