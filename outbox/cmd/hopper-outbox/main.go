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
//
// Exit status, as for the hopper command: 2 for bad usage (an unknown
// flag, a flag value it refuses, a missing or malformed --postgres or
// --redis, an extra argument: one line on stderr, then the command's
// usage), found before connecting to anything; 1 for a failure while
// running (PostgreSQL or Redis unreachable, a missing table: one line on
// stderr); 0 otherwise, help included (printed to stdout).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// usageError is bad usage of a command, found before it connected to
// anything: run prints one line naming the command and what was wrong,
// then the command's usage, to stderr, and exits 2.
type usageError struct {
	fs  *flagSet
	msg string
}

func (e *usageError) Error() string { return e.msg }

// helpError reports that a command's help was asked for (-h, --help):
// run prints the command's usage to stdout and exits 0.
type helpError struct{ fs *flagSet }

func (e *helpError) Error() string { return "help requested" }

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
	redis.SetLogger(discardRedisLog{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Stdout, os.Stderr, os.Args[1:]))
}

// discardRedisLog drops go-redis's own log lines, as the hopper command
// does: a Redis that refused connections logged one per attempt
// ("redis: ... pool.go:770: ... failed to dial after 5 attempts") before
// the command's error said the same once; a relay's warnings say it while
// it runs.
type discardRedisLog struct{}

func (discardRedisLog) Printf(context.Context, string, ...any) {}

// run dispatches to a command and returns the exit code.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	if len(args) >= 2 && args[0] == "help" {
		// "help relay" is "relay -h".
		return run(ctx, stdout, stderr, []string{args[1], "-h"})
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(stdout, stderr, c.name, c.run(ctx, stdout, stderr, args[1:]))
		}
	}
	fmt.Fprintf(stderr, "hopper outbox: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// exitCode prints what command's err says, if anything, and returns the
// exit code: 0 for none or help, 2 for bad usage, 1 for any other error.
func exitCode(stdout, stderr io.Writer, command string, err error) int {
	var help *helpError
	var bad *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		help.fs.usage(stdout)
		return 0
	case errors.As(err, &bad):
		fmt.Fprintf(stderr, "hopper outbox %s: %s\n\n", command, bad.msg)
		bad.fs.usage(stderr)
		return 2
	}
	fmt.Fprintf(stderr, "hopper outbox %s: %s\n", command, oneLine(errText(err)))
	return 1
}

// oneLine puts an error's text that spans lines on one line, each line
// said once: pgx lists each address it tried on a line of its own,
// "failed to connect to `user=u database=d`:\n\t127.0.0.1:5432 (h): dial
// error: ...", and the same line twice when it tried with TLS and
// without.
func oneLine(s string) string {
	lines := strings.Split(s, "\n")
	out, sep := lines[0], "; "
	if strings.HasSuffix(out, ":") {
		sep = " "
	}
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		out += sep + l
		sep = "; "
	}
	return out
}

// errText is err's text for a line that starts "hopper outbox <command>:
// " itself. The library's errors start with "hopper: ", and some wrap
// another that does: printed as they are, the line said "hopper" twice or
// more. Every "hopper: " that starts the text or follows ": " is left
// out, as the hopper command does.
func errText(err error) string {
	s := strings.TrimPrefix(err.Error(), "hopper: ")
	return strings.ReplaceAll(s, ": hopper: ", ": ")
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
