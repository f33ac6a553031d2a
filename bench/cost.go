package main

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// meter measures what one phase of a run costs Redis and this process. It
// uses its own single-connection client, whose INFO and CONFIG calls are
// left out of the command counts.
type meter struct {
	rdb *redis.Client
}

// phaseStart is a meter's reading at the start of a phase.
type phaseStart struct {
	snap infoSnapshot
	cpu  time.Duration
}

// phaseCost is what one phase cost.
type phaseCost struct {
	commands  map[string]int64 // calls per command, Lua-issued ones included
	calls     int64            // sum of commands
	redisCPU  float64          // Redis used_cpu_user + used_cpu_sys, seconds
	clientCPU time.Duration    // this process's user + system CPU
	memory    float64          // change of used_memory, bytes
	netBytes  float64          // change of total_net_input_bytes + total_net_output_bytes
	reads     float64          // change of total_reads_processed (≈ client round trips)
}

// newMeter connects a meter to the Redis server at addr.
func newMeter(addr string) meter {
	return meter{rdb: redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1})}
}

// begin resets Redis's statistics (CONFIG RESETSTAT) and takes the
// starting reading of a phase.
func (m meter) begin(ctx context.Context) (phaseStart, error) {
	if err := m.rdb.ConfigResetStat(ctx).Err(); err != nil {
		return phaseStart{}, fmt.Errorf("CONFIG RESETSTAT: %w", err)
	}
	snap, err := takeSnapshot(ctx, m.rdb)
	if err != nil {
		return phaseStart{}, err
	}
	return phaseStart{snap: snap, cpu: processCPU()}, nil
}

// end takes the closing reading of the phase begun with s and returns the
// differences.
func (m meter) end(ctx context.Context, s phaseStart) (phaseCost, error) {
	cpu := processCPU()
	snap, err := takeSnapshot(ctx, m.rdb)
	if err != nil {
		return phaseCost{}, err
	}
	c := phaseCost{
		commands:  commandDelta(s.snap, snap),
		clientCPU: cpu - s.cpu,
		redisCPU:  delta(s.snap, snap, "used_cpu_user") + delta(s.snap, snap, "used_cpu_sys"),
		memory:    delta(s.snap, snap, "used_memory"),
		netBytes:  delta(s.snap, snap, "total_net_input_bytes") + delta(s.snap, snap, "total_net_output_bytes"),
		reads:     delta(s.snap, snap, "total_reads_processed"),
	}
	for _, n := range c.commands {
		c.calls += n
	}
	return c, nil
}

// close closes the meter's connection.
func (m meter) close() error { return m.rdb.Close() }

// delta is after − before of a numeric INFO field (NaN if missing).
func delta(before, after infoSnapshot, key string) float64 {
	return after.number(key) - before.number(key)
}

// processCPU returns the user plus system CPU time this process has used,
// from getrusage(RUSAGE_SELF).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
