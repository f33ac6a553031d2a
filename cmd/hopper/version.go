package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
)

// runVersion prints the release, the stored layout this binary writes and
// the Go it was built with.
func runVersion(_ context.Context, a *app, args []string) error {
	fs := newFlags("version", "hopper version", a.stderr)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return errHelp
	} else if err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return badUsage(fs, "unexpected argument %q (version takes none)", fs.Arg(0))
	}
	fmt.Fprintf(a.stdout, "hopper %s (Redis layout %d, %s %s/%s)\n", hopper.Version, redisstore.LayoutVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
