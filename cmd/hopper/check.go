package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/redisurl"
	"github.com/hopperq/hopper/internal/urlredact"
	"github.com/hopperq/hopper/redisstore"
)

// checkUsage is the help of "hopper check": what each line checks and
// its thresholds (docs/production-checklist.md says why).
const checkUsage = `hopper check [--redis URL] [--redis-prefix P] [--cluster] [--replicas N] [--strict] [--timeout D]

Connects as the workers do and judges the Redis for production, one line
each (ok, warn or FAIL, the value measured, and for warn and FAIL why and
what to set), for every master (every master of a Cluster):

  version             < 7.0 FAIL
  maxmemory-policy    anything but noeviction FAIL
  persistence         no AOF and no save points FAIL; RDB only, or
                      appendfsync no, warn
  cluster-require-full-coverage   yes warn (Cluster only)
  replicas            none warn; fewer than --replicas FAIL, exactly --replicas warn
  WAIT                refused warn (FAIL with --replicas)
  clock skew          |server TIME - local| > 500 ms warn, > 2 s FAIL
  latency             median of 20 PINGs > 5 ms warn
  memory              maxmemory 0 warn; < 20 % free warn, < 5 % FAIL
then for the prefix:
  functions           FUNCTION LOAD refused warn (plain scripts, more CPU)
  ACL                 a right of the documented ACL line missing FAIL
  layout              older and readable warn (run hopper migrate up);
                      unreadable FAIL
  backlog             free memory below the backlog's size warn

--timeout (30s) bounds the whole check: a line not measured in time says so.
Exit 1 when a line FAILs (with --strict, when one warns too), else 0.`

// errCheckFailed is returned when a line FAILed; the lines say why.
var errCheckFailed = errors.New("not ready for production")

// runCheck runs "hopper check".
func runCheck(ctx context.Context, a *app, args []string) error {
	fs := newFlags("check", checkUsage, a.stderr)
	sf := addStoreFlags(fs)
	strict := fs.Bool("strict", false, "exit 1 on a warning too")
	replicas := fs.Int("replicas", 0, "the Config.Replicas the processes use: a master with fewer replicas, or without WAIT, FAILs")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return badUsage(fs, "unexpected argument %q", pos[0])
	case *replicas < 0:
		return badUsage(fs, "--replicas %d is negative", *replicas)
	case *timeout <= 0:
		return badUsage(fs, "--timeout %v: give how long to try, such as 30s", *timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	raw := redisurl.Normalize(sf.url)
	rdb, err := dialRedis(ctx, sf)
	if err != nil {
		return err
	}
	defer rdb.Close()
	fmt.Fprintf(a.stdout, "hopper check: %s, prefix %q\n", urlredact.Redact(raw), sf.prefix)
	var all []checkLine
	nodes, err := masters(ctx, rdb)
	if err != nil {
		return err
	}
	var free int64
	for _, n := range nodes {
		r, err := readNode(ctx, n)
		if err != nil {
			return err
		}
		lines := nodeLines(r, *replicas)
		if r.role == "slave" {
			lines = append([]checkLine{{vFail, "role", "replica", "a replica refuses writes (READONLY); point --redis at the master"}}, lines...)
		}
		printLines(a.stdout, fmt.Sprintf("%s (%s)", r.addr, roleName(r.role)), lines)
		all = append(all, lines...)
		switch {
		case free < 0:
		case r.max == 0:
			free = -1
		default:
			free += max(0, r.max-r.used)
		}
	}
	s := redisstore.New(rdb, &redisstore.Config{Prefix: sf.prefix, Logger: slog.New(slog.DiscardHandler)})
	lines := storeLines(ctx, s, free)
	printLines(a.stdout, fmt.Sprintf("prefix %q", sf.prefix), lines)
	all = append(all, lines...)
	var fails, warns int
	for _, l := range all {
		switch l.v {
		case vFail:
			fails++
		case vWarn:
			warns++
		}
	}
	fmt.Fprintf(a.stdout, "\n%d FAIL, %d warn, %d ok\n", fails, warns, len(all)-fails-warns)
	switch {
	case fails > 0:
		return fmt.Errorf("%w: %d FAIL", errCheckFailed, fails)
	case warns > 0 && *strict:
		return fmt.Errorf("%w: %d warn (--strict)", errCheckFailed, warns)
	}
	return nil
}

func roleName(role string) string {
	if role == "slave" {
		return "replica"
	}
	if role == "" {
		return "role unknown"
	}
	return role
}

// printLines prints a group of lines under its title.
func printLines(w io.Writer, title string, lines []checkLine) {
	fmt.Fprintf(w, "\n%s\n", title)
	for _, l := range lines {
		fmt.Fprintf(w, "  %-4s  %s: %s", l.v, l.name, l.value)
		if l.why != "" {
			fmt.Fprintf(w, " — %s", l.why)
		}
		fmt.Fprintln(w)
	}
}

// storeLines checks what the prefix's store needs: functions, ACL, the
// stored layout and the backlog against free memory (free: the masters'
// free bytes, -1 when one has no maxmemory).
func storeLines(ctx context.Context, s *redisstore.Store, free int64) []checkLine {
	var out []checkLine
	st, layoutErr := s.Layout(ctx) // runs the workers' start-up check (loads the functions), not the layout write
	if s.FunctionsRefused() {
		out = append(out, checkLine{vWarn, "functions", "FUNCTION LOAD refused", "the scripts run as plain scripts (EVALSHA), which costs Redis more CPU per call; grant +function|load or use a server with functions"})
	} else if layoutErr == nil {
		out = append(out, ok("functions", "loaded"))
	}
	out = append(out, aclLine(ctx, s))
	out = append(out, layoutLine(st, layoutErr))
	out = append(out, backlog(ctx, s, free))
	return out
}

func aclLine(ctx context.Context, s *redisstore.Store) checkLine {
	nodes, err := s.CheckACL(ctx)
	if err != nil {
		return checkLine{vWarn, "ACL", "not checked: " + errText(err), "the rights could not be probed"}
	}
	var missing, slower []string
	rules := 0
	for _, n := range nodes {
		rules = n.Checked
		for _, d := range n.Denied {
			m := fmt.Sprintf("%s (%s refused on %s)", d.Rule, d.Command, n.Addr)
			if d.Slower {
				slower = append(slower, m)
			} else {
				missing = append(missing, m)
			}
		}
		if n.Incomplete != "" {
			missing = append(missing, n.Addr+": "+n.Incomplete)
		}
	}
	if len(missing) > 0 {
		return checkLine{vFail, "ACL", "missing " + strings.Join(append(missing, slower...), ", "), "the workers' calls fail with NOPERM; grant them (the ACL SETUSER line in the redisstore documentation, Access control)"}
	}
	if len(slower) > 0 {
		return checkLine{vWarn, "ACL", "missing " + strings.Join(slower, ", "), "hopper works without them at more Redis CPU per call; grant them (the ACL SETUSER line in the redisstore documentation, Access control)"}
	}
	return ok("ACL", fmt.Sprintf("the user holds all %d rules hopper needs, on %d master(s)", rules, len(nodes)))
}

func layoutLine(st redisstore.LayoutStatus, err error) checkLine {
	switch {
	case err != nil:
		return checkLine{vFail, "layout", "unreadable: " + errText(err), "workers refuse to run on it; see hopper migrate status"}
	case st.Err != nil:
		return checkLine{vFail, "layout", fmt.Sprintf("%d, this release reads %d to %d", st.Stored, st.OldestReadable, st.Current), st.Err.Error()}
	case st.Fresh:
		return ok("layout", fmt.Sprintf("no hopper data under the prefix yet (a store writes layout %d; check --redis-prefix if you expected some)", st.Current))
	case st.Stored < st.Current:
		return checkLine{vWarn, "layout", fmt.Sprintf("%d, this release writes %d", st.Stored, st.Current), "migration pending: run hopper migrate up once every worker runs this release"}
	}
	return ok("layout", fmt.Sprintf("%d, current", st.Stored))
}

// backlog counts the jobs of every queue and measures their bytes.
func backlog(ctx context.Context, s *redisstore.Store, free int64) checkLine {
	queues, err := s.ListQueues(ctx)
	if err != nil {
		return checkLine{vWarn, "backlog", "unknown: " + errText(err), "the queues could not be read"}
	}
	var jobs int64
	perQueue := map[string]int64{}
	for _, q := range queues {
		st, err := s.GetQueueStats(ctx, q)
		if err != nil {
			return checkLine{vWarn, "backlog", "unknown: " + errText(err), "the queues could not be read"}
		}
		perQueue[q] = st.Counts.Total()
		jobs += perQueue[q]
	}
	perJob, measured := float64(bytesPerJobDef), false
	if jobs >= 100 {
		if info, err := s.ServerInfo(ctx); err == nil && len(info.Queues) > 0 {
			var b, n int64
			for _, m := range info.Queues {
				b += m.Bytes
				n += perQueue[m.Queue]
			}
			if n >= 100 {
				perJob, measured = float64(b)/float64(n), true
			}
		}
	}
	return backlogLine(jobs, perJob, measured, free)
}
