// Command bench measures hopper against asynq on a Redis server it starts
// itself, and prints a markdown report. Run it from the repository root
// with
//
//	go run -C bench .
//
// See README.md for the workloads and how to read the report.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// config is the benchmark's settings, from the command line.
type config struct {
	n           int           // jobs per enqueue and drain run
	reps        int           // repetitions of every workload per system
	concurrency int           // worker concurrency
	rate        int           // total jobs/s of the latency workload
	duration    time.Duration // length of the latency workload
	delayedN    int           // jobs of the delayed workload
	systems     []string      // systems to run, in turn order
	workloads   []string      // -workloads names to run
	redisAddr   string        // an existing server to use, or "" to start one
	jsonPath    string        // where to write every run as JSON, or ""
	timeout     time.Duration // how long a run may wait for full delivery
}

// main runs the benchmark and exits with its status: 0, 1 when a run
// failed, 2 for bad flags or set-up errors, 130 when interrupted.
func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its outputs and arguments as parameters, so that every
// deferred clean-up (stopping redis-server above all) runs before the
// process exits.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	addr, owned := cfg.redisAddr, false
	if addr == "" {
		srv, err := startRedis()
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		defer srv.stop()
		addr, owned = srv.addr, true
		fmt.Fprintf(stderr, "bench: started redis-server on %s\n", addr)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	version, err := serverVersion(ctx, rdb)
	if err != nil {
		fmt.Fprintf(stderr, "bench: cannot reach Redis at %s: %v\n", addr, err)
		return 2
	}

	info := newMeta(cfg, version, addr, owned)
	wls := selectWorkloads(cfg)
	results := runAll(ctx, cfg, addr, rdb, wls, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "bench: interrupted; no report")
		return 130
	}

	writeReport(stdout, info, cfg, wls, results)
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, info, results); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", cfg.jsonPath)
	}
	failed := 0
	for _, r := range results {
		if r.Error != "" {
			failed++
			fmt.Fprintf(stderr, "FAILED: %s %s rep %d: %s\n", r.Workload, r.System, r.Rep, r.Error)
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "bench: %d run(s) FAILED\n", failed)
		return 1
	}
	return 0
}

// parseFlags reads the command line into a config and checks it.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run -C bench . [flags]\n\nMeasures hopper against asynq on a Redis server and prints a markdown report.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	cfg := &config{}
	var systemList, workloadNames string
	fs.IntVar(&cfg.n, "n", 50000, "jobs per enqueue, batch and drain run")
	fs.IntVar(&cfg.reps, "reps", 3, "repetitions of every workload per system (the systems take turns)")
	fs.IntVar(&cfg.concurrency, "concurrency", 32, "worker concurrency of every system")
	fs.IntVar(&cfg.rate, "rate", 2000, "jobs/s sent in total by the latency workload's paced producers")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "how long the latency workload sends")
	fs.IntVar(&cfg.delayedN, "delayed-n", 5000, "jobs of the delayed workload")
	fs.StringVar(&systemList, "systems", "hopper,asynq", "comma-separated systems to run: hopper, asynq")
	fs.StringVar(&workloadNames, "workloads", workloadsAll, "comma-separated workloads: enqueue, batch, drain (includes the cost table), latency, delayed, or all")
	fs.StringVar(&cfg.redisAddr, "redis", "", "`HOST:PORT` of an existing Redis server to use instead of starting one; WARNING: it is FLUSHALLed before every run and its statistics are reset (CONFIG RESETSTAT)")
	fs.StringVar(&cfg.jsonPath, "json", "", "write every run's raw results to this `FILE`")
	fs.DurationVar(&cfg.timeout, "timeout", 60*time.Second, "how long a run may wait for every job to be delivered (after the last one was sent or due) or for an enqueue phase; past it the run FAILS")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"-n", cfg.n > 0}, {"-reps", cfg.reps > 0}, {"-concurrency", cfg.concurrency > 0},
		{"-rate", cfg.rate > 0}, {"-duration", cfg.duration > 0}, {"-delayed-n", cfg.delayedN > 0},
		{"-timeout", cfg.timeout > 0},
	} {
		if !c.ok {
			return nil, fmt.Errorf("%s must be positive", c.name)
		}
	}
	var err error
	if cfg.systems, err = parseSystems(systemList); err != nil {
		return nil, err
	}
	if cfg.workloads, err = parseWorkloads(workloadNames); err != nil {
		return nil, err
	}
	return cfg, nil
}

// parseWorkloads validates a comma-separated list of -workloads names;
// "all" stands for every workload.
func parseWorkloads(list string) ([]string, error) {
	known := strings.Split(workloadsAll, ",")
	var out []string
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case name == "all":
			out = append(out, known...)
		case slices.Contains(known, name):
			out = append(out, name)
		default:
			return nil, fmt.Errorf("unknown workload %q (known: %s, all)", name, workloadsAll)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no workload given")
	}
	return out, nil
}

// selectWorkloads returns the workloads cfg asks for, in their fixed run
// order.
func selectWorkloads(cfg *config) []workload {
	var out []workload
	for _, wl := range workloadList(cfg) {
		if slices.Contains(cfg.workloads, wl.flag) {
			out = append(out, wl)
		}
	}
	return out
}
