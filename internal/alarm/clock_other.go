//go:build !linux

package alarm

// newClock returns the portable clock.
func newClock(fire func()) clock { return &timerClock{fire: fire} }
