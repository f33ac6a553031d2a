package pgtest

import (
	"errors"
	"fmt"
	"time"
)

// Kill kills the postmaster with SIGKILL, as a crash would, and returns
// once it has exited; its backends notice and exit on their own. Connections
// to the cluster break. Restart starts it again.
func (c *Cluster) Kill() error {
	if c.cmd == nil || c.cmd.Process == nil {
		return errors.New("pgtest: Kill of a cluster that is not running")
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return fmt.Errorf("pgtest: kill postgres: %w", err)
	}
	<-c.done
	return nil
}

// Restart starts the server again after Kill, on the same data directory
// and port (so URL stays valid), and returns once it accepts connections:
// after its crash recovery. Until the killed server's backends have
// exited, postgres refuses to start (their shared memory is still in
// use); Restart tries again until startTimeout.
func (c *Cluster) Restart() error {
	deadline := time.Now().Add(startTimeout)
	for {
		err := c.launch()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: restart: %w", err)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}
