// Command hopper runs a demo of hopper and inspects and manages its queues.
//
//	hopper demo                     run a self-contained demo on the in-memory store, with its dashboard
//	hopper dashboard --redis URL    serve the web dashboard for a Redis store
//	hopper stats                    print a table of queues and their jobs per state
//	hopper jobs list|show|retry|delete|cancel
//	hopper workflows list|show|cancel|retry
//	hopper queues pause|resume NAME...
//	hopper queues set --max-running N ... NAME...
//	                                change the settings named by the flags, keep the others
//	hopper queues groups NAME       a grouped queue's groups: ready, running, cap, hold
//	hopper queues group-limit NAME GROUP N
//	                                give a group a cap of its own (0 removes it)
//	hopper events --queue NAME      tail a queue's event stream: every job's moves, live
//	hopper migrate status|up        the layout of the data in Redis, and migrating it after an upgrade
//	hopper check                    is this Redis fit for hopper? a verdict per line, exit 1 on a problem
//	hopper version                  print the release (hopper.Version) and the Redis layout it writes
//	hopper outbox relay|migrate|stats|schema
//	                                the transactional outbox, by running the hopper-outbox
//	                                program (module github.com/hopperq/hopper/outbox)
//
// Every command but demo and version reads a Redis store: --redis (default
// $HOPPER_REDIS_URL, else redis://localhost:6379/0) and --redis-prefix
// (the redisstore key prefix, default "hopper"). Run "hopper help" for every
// command and "hopper <command> -h" for its flags.
//
// Exit status: 2 for bad usage (an unknown flag, a bad flag value, a
// missing or extra argument: one line, then the command's usage), 1 for a
// failure while running (Redis unreachable, a job not found, check's
// FAIL), 0 otherwise.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// app is what a command runs with: its output streams and how to open the
// store. Tests replace open to run the commands on a store of their own.
type app struct {
	stdout, stderr io.Writer
	open           storeOpener
}

// command is one subcommand of the CLI.
type command struct {
	name, summary string
	run           func(ctx context.Context, a *app, args []string) error
}

func commands() []command {
	return []command{
		{"demo", "run a demo: jobs flowing, retried and dying, on the in-memory store, with the dashboard", runDemo},
		{"dashboard", "serve the web dashboard for a Redis store", runDashboard},
		{"stats", "print a table of queues: jobs per state, paused, latency, throughput", runStats},
		{"jobs", "list, show, retry, delete or cancel jobs", runJobs},
		{"workflows", "list, show, cancel or retry workflows (jobs that depend on jobs)", runWorkflows},
		{"queues", "pause or resume queues, change some of their settings (queues set), list or cap a queue's groups", runQueues},
		{"schedules", "list, pause, resume, respec or delete stored schedules", runSchedules},
		{"events", "tail the event streams of queues: enqueued, started, succeeded, retried, dead...", runEvents},
		{"outbox", "the transactional outbox on PostgreSQL: relay, migrate, stats, schema (runs hopper-outbox)", runOutbox},
		{"migrate", "the layout of the data in Redis: status, and up to migrate it after an upgrade", runMigrate},
		{"check", "judge a Redis for production: version, eviction, persistence, replicas, ACL, layout, clock, latency, memory", runCheck},
		{"version", "print this hopper's release, the Redis layout it writes and the Go it was built with", runVersion},
	}
}

func main() {
	redis.SetLogger(discardRedisLog{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, &app{stdout: os.Stdout, stderr: os.Stderr, open: openRedis}, os.Args[1:]))
}

// discardRedisLog drops go-redis's own log lines: a failed dial logged
// one per attempt ("redis: ... pool.go:770: ... failed to dial after 5
// attempts") before the command's error said the same once. The CLI has
// no debug output to send them to.
type discardRedisLog struct{}

func (discardRedisLog) Printf(context.Context, string, ...any) {}

// run dispatches to a subcommand and returns the exit code.
func run(ctx context.Context, a *app, args []string) int {
	if len(args) >= 2 && args[0] == "help" {
		// "hopper help jobs list" is "hopper jobs list -h".
		return run(ctx, a, append(append([]string{}, args[1:]...), "-h"))
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(a.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if flags, rest, bad := leadingStoreFlags(args); len(flags) > 0 || bad != "" {
		// "hopper --redis URL stats" is "hopper stats --redis URL".
		switch {
		case isHelp(bad):
			usage(a.stdout)
			return 0
		case bad != "" || len(rest) == 0:
			flag := bad
			if flag == "" {
				flag = flags[0]
			}
			fmt.Fprintf(a.stderr, "hopper: %s goes after the command: hopper <command> %s ...\n\n", flag, flag)
			usage(a.stderr)
			return 2
		}
		args = slices.Concat(rest[:1], flags, rest[1:])
	}
	checked := *a
	checked.open = a.open.checked()
	a = &checked
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(a, c.name, c.run(ctx, a, args[1:]))
		}
	}
	fmt.Fprintf(a.stderr, "hopper: unknown command %q\n\n", args[0])
	usage(a.stderr)
	return 2
}

// exitCode prints what command's err says, if anything, and returns the
// exit code: 2 for bad usage, 1 for any other error, 0 for none or help.
func exitCode(a *app, command string, err error) int {
	var bad *usageError
	switch {
	case err == nil, err == errHelp:
		return 0
	case err == errUsage:
		return 2 // printed
	case err == errFailed:
		return 1 // printed
	case errors.As(err, &bad):
		bad.print(a.stderr)
		return 2
	}
	fmt.Fprintf(a.stderr, "hopper %s: %s\n", command, errText(err))
	if errors.Is(err, redisstore.ErrReadOnly) {
		// A replica's address, or a Cluster node's without --cluster.
		fmt.Fprintf(a.stderr, "hopper %s: the server is a read-only replica: give --redis the master's address (a Redis Cluster: --cluster and any node's)\n", command)
	}
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hopper <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "hopper <command> -h" (or "hopper help <command>") for the flags of a command.`)
	fmt.Fprintln(w, "Exit status: 2 for bad usage (a flag, a value or an argument wrong or missing), 1 for a failure while running, 0 otherwise.")
}
