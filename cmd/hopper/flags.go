package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errUsage reports that a command printed its usage because its arguments
// were wrong; the exit code is 2 and nothing more is printed.
var errUsage = errors.New("usage")

// errHelp reports that a command printed the help that was asked for (-h,
// --help, help); the exit code is 0.
var errHelp = errors.New("help")

// badUsage prints what was wrong with a command's arguments, one line
// naming the command, then the command's usage, and returns errUsage.
func badUsage(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "hopper %s: %s\n\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return errUsage
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
