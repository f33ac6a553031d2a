package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// errUsage reports that a command printed its usage because its arguments
// were wrong (or -h was asked for); the exit code is 2 and nothing more is
// printed.
var errUsage = errors.New("usage")

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
		if err := fs.Parse(args); err != nil {
			return nil, errUsage // fs printed the error (or the help asked for) and the usage
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
