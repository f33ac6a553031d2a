// Command hopper-outbox relays and inspects hopper's transactional outbox
// on PostgreSQL (package outbox). The hopper command runs it for
// "hopper outbox ...":
//
//	hopper outbox relay     move committed outbox rows into the Redis store, until interrupted
//	hopper outbox migrate   create the outbox tables and trigger (idempotent)
//	hopper outbox stats     print the outbox's depth, relay lag and dead rows
//	hopper outbox schema    print the SQL that migrate runs
//
// PostgreSQL is named by --postgres (default $HOPPER_POSTGRES_URL, else
// $DATABASE_URL), Redis by --redis and --redis-prefix as for the hopper
// command. Install it with
//
//	go install github.com/hopperq/hopper/outbox/cmd/hopper-outbox@latest
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// errUsage reports that a command printed its usage: exit code 2.
var errUsage = errors.New("usage")

type command struct {
	name, summary string
	run           func(ctx context.Context, stdout, stderr io.Writer, args []string) error
}

func commands() []command {
	return []command{
		{"relay", "move committed outbox rows into the Redis store, until interrupted", runRelay},
		{"migrate", "create the outbox tables and trigger (idempotent)", runMigrate},
		{"stats", "print the outbox's depth, relay lag and dead rows", runStats},
		{"schema", "print the SQL that migrate runs", runSchema},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Stdout, os.Stderr, os.Args[1:]))
}

// run dispatches to a command and returns the exit code.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		if err := c.run(ctx, stdout, stderr, args[1:]); err != nil {
			if errors.Is(err, errUsage) {
				return 2
			}
			fmt.Fprintf(stderr, "hopper outbox %s: %v\n", c.name, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "hopper outbox: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hopper outbox <command> [flags]   (or hopper-outbox <command>)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "hopper outbox <command> -h" for the flags of a command.`)
}
