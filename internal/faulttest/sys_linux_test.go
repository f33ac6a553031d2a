package faulttest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// fSetPipeSize is F_SETPIPE_SZ (fcntl(2)), which package syscall does not
// name.
const fSetPipeSize = 1031

// widenLedgerPipe makes the pipe a worker process reports its ledger on
// (its stdout) as large as an unprivileged process may
// (/proc/sys/fs/pipe-max-size, 1 MiB by default, instead of 64 KiB), and
// returns its new size.
//
// A worker writes every event in the goroutine the event is about: its
// lease renewals, claims, finishes and handlers all wait while the pipe
// is full. 64 KiB is about 350 events, a quarter of a second of a busy
// worker: a test binary that stopped reading for longer (under -race it
// copies its whole ledger under a lock each time the ledger's slice grows,
// for seconds at 100k events on a loaded machine) stalled every worker at
// once, whose leases then ran out and whose jobs ran twice, with no fault
// injected. 1 MiB holds several seconds of a worker's events.
func widenLedgerPipe() (int, error) {
	size := 1 << 20
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			size = n
		}
	}
	// fd 1, not os.Stdout.Fd(), which would put the file in blocking mode.
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, fSetPipeSize, uintptr(size))
	if errno != 0 {
		return 0, fmt.Errorf("F_SETPIPE_SZ %d on stdout: %w", size, errno)
	}
	return int(n), nil
}

// isDead reports whether process pid has ended (a zombie not reaped yet,
// or gone), from /proc; known is always true here.
func isDead(pid int) (dead, known bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err), true
	}
	// The state follows the command name, in parentheses that the name
	// may contain too.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false, true
	}
	switch s[i+2] {
	case 'Z', 'X', 'x':
		return true, true
	}
	return false, true
}
