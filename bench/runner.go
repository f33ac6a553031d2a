package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// runAll runs every workload cfg.reps times per system, the systems taking
// turns within each repetition, and logs one line per run to progress. It
// stops early, with what it has, when ctx is done.
func runAll(ctx context.Context, cfg *config, addr string, admin *redis.Client, wls []workload, progress io.Writer) []runResult {
	m := newMeter(addr)
	defer m.close()
	total := len(wls) * cfg.reps * len(cfg.systems)
	width := len(strconv.Itoa(total))
	var results []runResult
	for _, wl := range wls {
		for rep := 1; rep <= cfg.reps; rep++ {
			for _, name := range cfg.systems {
				if ctx.Err() != nil {
					return results
				}
				r := runOne(ctx, cfg, addr, admin, m, wl, name, rep)
				results = append(results, r)
				fmt.Fprintf(progress, "[%*d/%d] %-9s %-6s rep %d: %s\n", width, len(results), total, wl.id, name, rep, summary(wl, r))
			}
		}
	}
	return results
}

// runOne does one run of wl on a freshly opened system after a FLUSHALL.
// A panic inside the run is turned into a failed result.
func runOne(ctx context.Context, cfg *config, addr string, admin *redis.Client, m meter, wl workload, name string, rep int) (r runResult) {
	r = runResult{Workload: wl.id, System: name, Rep: rep, Start: time.Now()}
	defer func() {
		if p := recover(); p != nil {
			r.Error = fmt.Sprintf("panic: %v", p)
		}
		r.Seconds = time.Since(r.Start).Seconds()
	}()

	sys, err := systems[name](addr)
	if err != nil {
		r.Error = fmt.Sprintf("open: %v", err)
		return r
	}
	defer sys.Close()
	if _, ok := sys.(BatchEnqueuer); wl.needsBatch && !ok {
		r.NotApplicable = true
		return r
	}
	if err := admin.FlushAll(ctx).Err(); err != nil {
		r.Error = fmt.Sprintf("FLUSHALL: %v", err)
		return r
	}
	runtime.GC()

	env := &runEnv{
		cfg:      cfg,
		sys:      sys,
		queue:    fmt.Sprintf("bench-%s-%s-%d-%d", wl.id, name, rep, time.Now().UnixNano()),
		meter:    m,
		commands: map[string]map[string]int64{},
	}
	met, err := wl.run(ctx, env)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Metrics = met
	if len(env.commands) > 0 {
		r.Commands = env.commands
	}
	return r
}

// summary is a run's one-line outcome for the progress log: its first
// metric, n/a, or the failure.
func summary(wl workload, r runResult) string {
	switch {
	case r.Error != "":
		return "FAILED: " + r.Error
	case r.NotApplicable:
		return "n/a"
	}
	first := wl.tables[0].metrics[0]
	v, ok := r.Metrics[first.key]
	if !ok {
		return fmt.Sprintf("done in %.1f s", r.Seconds)
	}
	return fmt.Sprintf("%s: %s (%.1f s)", first.label, formatNumber(v, first.decimals), r.Seconds)
}
