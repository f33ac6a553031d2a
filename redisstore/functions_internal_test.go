package redisstore

import (
	"testing"
	"time"
)

// TestLoadsPaused: after a server refused FUNCTION LOAD at maxmemory no
// call loads a library until the pause ends; then one caller is let
// through, and the others wait for what its load finds.
func TestLoadsPaused(t *testing.T) {
	s := &Store{}
	s.fmode.fullPause = time.Hour
	if s.loadsPaused() {
		t.Fatal("a store whose server never refused a load pauses its loads")
	}
	s.pauseLoads()
	if !s.loadsPaused() {
		t.Fatal("a store right after a refused load does not pause its loads")
	}
	s.fmode.fullUntil.Store(monoNow() - 1) // the pause has ended
	if s.loadsPaused() {
		t.Fatal("the first caller after the pause is not let through")
	}
	if !s.loadsPaused() {
		t.Fatal("a second caller after the pause is let through too, while the first one's load runs")
	}
}
