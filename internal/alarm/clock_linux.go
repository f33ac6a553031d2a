package alarm

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fdClock is a timerfd read through the runtime's poller: a goroutine
// blocks on it without holding a thread, and wakes when the kernel's
// timer expires.
type fdClock struct {
	fd   int
	file *os.File
}

// newClock returns a timerfd clock calling fire on each expiry, or the
// portable clock when the kernel refuses a timerfd.
func newClock(fire func()) clock {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &timerClock{fire: fire}
	}
	c := &fdClock{fd: fd, file: os.NewFile(uintptr(fd), "hopper-alarm")}
	go c.loop(fire)
	return c
}

// loop calls fire on each expiry until the file is closed. A read takes
// the count of expiries since the last one; arming again clears it.
func (c *fdClock) loop(fire func()) {
	var buf [8]byte
	for {
		if _, err := c.file.Read(buf[:]); err != nil {
			return
		}
		fire()
	}
}

func (c *fdClock) arm(d time.Duration) {
	// An error here (none is documented for these arguments) leaves the
	// setting unarmed; the caller's own timeout still ends its wait.
	_ = unix.TimerfdSettime(c.fd, 0, &unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}, nil)
}

func (c *fdClock) disarm() {
	_ = unix.TimerfdSettime(c.fd, 0, &unix.ItimerSpec{}, nil)
}

func (c *fdClock) close() { _ = c.file.Close() }
