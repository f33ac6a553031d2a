package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// errUsage reports that a command printed its usage because its arguments
// were wrong; the exit code is 2 and nothing more is printed.
var errUsage = errors.New("usage")

// errFailed reports a failure while running that the command printed
// itself (hopper outbox: hopper-outbox's line); the exit code is 1 and
// nothing more is printed.
var errFailed = errors.New("failed")

// errHelp reports that a command printed the help that was asked for (-h,
// --help, help); the exit code is 0.
var errHelp = errors.New("help")

// usageError is bad usage found after the flags parsed: a flag's value, a
// combination of flags, an argument missing, extra or malformed. run
// prints it, one line naming the command and what was wrong, then the
// command's usage, and exits 2. A failure while running (Redis
// unreachable, a job not found) is any other error: one line, exit 1.
type usageError struct {
	fs  *flag.FlagSet // the command's flags: its name and usage
	msg string
}

func (e *usageError) Error() string { return e.msg }

// badUsage returns the usage error of the command of fs: what was wrong
// with its arguments.
func badUsage(fs *flag.FlagSet, format string, args ...any) error {
	return &usageError{fs: fs, msg: fmt.Sprintf(format, args...)}
}

// print writes e to w as run does: the line, then the command's usage.
func (e *usageError) print(w io.Writer) {
	fmt.Fprintf(w, "hopper %s: %s\n\n", e.fs.Name(), errText(e))
	e.fs.Usage()
}

// errText is err's text for a line the CLI starts with "hopper <command>:
// " itself. The library's errors start with "hopper: ", and some wrap
// another that does: printed as they are, the line said "hopper" twice or
// more ("hopper jobs: hopper: invalid job state"). Every "hopper: " that
// starts the text or follows ": " is left out.
func errText(err error) string {
	s := strings.TrimPrefix(err.Error(), "hopper: ")
	return strings.ReplaceAll(s, ": hopper: ", ": ")
}

// itemFailed prints the line of one job, workflow or schedule (named by
// who) that a command could not act on: "ID: why", the library's "hopper:
// " left out as errText does.
func itemFailed(a *app, who string, err error) {
	fmt.Fprintf(a.stderr, "%s: %s\n", who, errText(err))
}

// checkQueueFlag refuses a --queue that is not a queue name, before the
// command connects (the store would refuse it, or find nothing in it).
func checkQueueFlag(fs *flag.FlagSet, queue string) error {
	if err := store.ValidateQueue(queue); err != nil {
		return badUsage(fs, "--queue: %s", errText(err))
	}
	return nil
}

// checkArgs refuses an argument that validate refuses, the store's rule
// for what the command takes (queue names, job or workflow IDs): no
// queue, job or workflow can be named so.
func checkArgs(fs *flag.FlagSet, args []string, validate func(string) error) error {
	for _, arg := range args {
		if err := validate(arg); err != nil {
			return badUsage(fs, "%s", errText(err))
		}
	}
	return nil
}

// isHelp reports whether arg asks a command with subcommands for its help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// newFlags returns a flag set that prints its errors and usage to w, with
// usageLine first.
func newFlags(name, usageLine string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: %s\n\nflags:\n", usageLine)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with fs, allowing flags after positional arguments
// ("jobs show ID --queue q"), and returns the positional arguments. "--"
// ends the flags.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, errHelp // fs printed the usage
		} else if err != nil {
			return nil, errUsage // fs printed the error and the usage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// durationValue is a time.Duration flag that keeps the text it was given,
// so that a message quotes the value as typed: "--in -5m", not "-5m0s".
type durationValue struct {
	d    time.Duration
	text string
}

// durationFlag defines a durationValue flag on fs.
func durationFlag(fs *flag.FlagSet, name string, value time.Duration, usage string) *durationValue {
	v := &durationValue{d: value}
	fs.Var(v, name, usage)
	return v
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration, such as 90s, 5m or 2h")
	}
	v.d, v.text = d, s
	return nil
}

func (v *durationValue) String() string {
	if v.text != "" {
		return v.text
	}
	return v.d.String()
}
