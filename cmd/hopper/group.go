package main

import (
	"fmt"
	"slices"
	"strings"
)

// subcommand reads the subcommand of a command group (jobs, workflows,
// queues, schedules, migrate) from args, one of subs, and returns it with
// the arguments that follow. With none, or one not in subs, it prints
// what was wrong and usageText and returns errUsage; asked for help, it
// prints usageText and returns errHelp.
//
// The store flags may come before the subcommand as well as after it:
// "jobs --redis URL list" is "jobs list --redis URL". Any other flag
// there is refused with where it goes: each subcommand has flags of its
// own.
func subcommand(a *app, group, usageText string, args []string, subs ...string) (string, []string, error) {
	flags, args, bad := leadingStoreFlags(args)
	switch {
	case bad != "" && !isHelp(bad):
		fmt.Fprintf(a.stderr, "hopper %s: %s goes after the subcommand: hopper %s <%s> %s ...\n\n%s\n", group, bad, group, strings.Join(subs, "|"), bad, usageText)
		return "", nil, errUsage
	case bad != "" || len(args) > 0 && isHelp(args[0]):
		fmt.Fprintln(a.stderr, usageText)
		return "", nil, errHelp
	case len(args) == 0:
		fmt.Fprintln(a.stderr, usageText)
		return "", nil, errUsage
	case !slices.Contains(subs, args[0]):
		fmt.Fprintf(a.stderr, "hopper %s: unknown subcommand %q\n\n%s\n", group, args[0], usageText)
		return "", nil, errUsage
	}
	return args[0], append(flags, args[1:]...), nil
}

// leadingStoreFlags splits the store flags (--redis, --redis-prefix,
// --cluster, with their values) that start args from the arguments after
// them. It stops at the first argument that is not a flag, or at another
// flag, which it returns as bad.
func leadingStoreFlags(args []string) (flags, rest []string, bad string) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		n := 1
		switch name {
		case "cluster":
		case "redis", "redis-prefix":
			if !hasValue {
				n = min(2, len(args))
			}
		default:
			return flags, args, args[0]
		}
		flags, args = append(flags, args[:n]...), args[n:]
	}
	return flags, args, ""
}
