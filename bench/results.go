package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// runResult is the outcome of one run of one workload on one system.
type runResult struct {
	Workload      string                      `json:"workload"`
	System        string                      `json:"system"`
	Rep           int                         `json:"rep"`
	Start         time.Time                   `json:"start"`
	Seconds       float64                     `json:"seconds"`
	Metrics       metrics                     `json:"metrics,omitempty"`
	Commands      map[string]map[string]int64 `json:"commands,omitempty"` // phase → Redis command → calls
	NotApplicable bool                        `json:"not_applicable,omitempty"`
	Error         string                      `json:"error,omitempty"`
}

// meta describes the machine, the software and the settings of a
// benchmark, for the report's header and the JSON.
type meta struct {
	Date         time.Time         `json:"date"`
	GoVersion    string            `json:"go_version"`
	OS           string            `json:"os"`
	Arch         string            `json:"arch"`
	GOMAXPROCS   int               `json:"gomaxprocs"`
	NumCPU       int               `json:"num_cpu"`
	RedisVersion string            `json:"redis_version"`
	RedisAddr    string            `json:"redis_addr"`
	RedisStarted bool              `json:"redis_started"` // started by the benchmark, not -redis
	Modules      map[string]string `json:"modules"`
	Config       map[string]any    `json:"config"`
}

// newMeta gathers the meta of this benchmark.
func newMeta(cfg *config, redisVersion, addr string, started bool) meta {
	return meta{
		Date:         time.Now(),
		GoVersion:    runtime.Version(),
		OS:           runtime.GOOS,
		Arch:         runtime.GOARCH,
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		NumCPU:       runtime.NumCPU(),
		RedisVersion: redisVersion,
		RedisAddr:    addr,
		RedisStarted: started,
		Modules:      moduleVersions(),
		Config: map[string]any{
			"n": cfg.n, "reps": cfg.reps, "concurrency": cfg.concurrency,
			"rate": cfg.rate, "duration": cfg.duration.String(), "delayed_n": cfg.delayedN,
			"systems": cfg.systems, "workloads": cfg.workloads, "timeout": cfg.timeout.String(),
			"producers": producers, "paced_producers": pacedProducers, "batch_size": batchSize,
			"delay_min": delayMin.String(), "delay_max": delayMax.String(), "grace": grace.String(),
		},
	}
}

// moduleVersions returns the versions of the modules under test, as built
// into this binary; a replaced module shows its replacement.
func moduleVersions() map[string]string {
	want := map[string]string{
		"github.com/hopperq/hopper":    "hopper",
		"github.com/hibiken/asynq":     "asynq",
		"github.com/redis/go-redis/v9": "go-redis",
	}
	out := map[string]string{}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	for _, d := range bi.Deps {
		name, ok := want[d.Path]
		if !ok {
			continue
		}
		v := d.Version
		if r := d.Replace; r != nil {
			v = "=> " + r.Path
			if r.Version != "" && r.Version != "(devel)" {
				v += " " + r.Version
			}
		}
		out[name] = v
	}
	return out
}

// writeJSON writes the meta and every run to path.
func writeJSON(path string, m meta, runs []runResult) error {
	b, err := json.MarshalIndent(struct {
		Meta meta        `json:"meta"`
		Runs []runResult `json:"runs"`
	}{m, runs}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
