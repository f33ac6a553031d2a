package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// MigrationStep is one step of Migrate: it brings the data from layout
// From to layout To (From + 1).
type MigrationStep struct {
	From, To int
	// Summary says what the step does, in one sentence.
	Summary string
	// NotForced, when not empty, says why MigrateOpts.Force does not
	// run this step past live workers of an older release: Migrate runs
	// the steps before it and stops there.
	NotForced string
	// run does it (or, with dry, counts what it would do) and reports
	// what it did; it is idempotent, and a run cut short resumes where it
	// stopped when run again.
	run func(ctx context.Context, s *Store, dry bool, progress func(string)) ([]string, error)
}

// migrations are the steps, in order, each From the previous To.
var migrations = []MigrationStep{
	{From: 0, To: 1,
		Summary: "rewrite the settings of every queue an older release configured, so that its rate limits (queue and per group) count claims with this release's guard",
		run:     migrateConfigs},
	{From: 1, To: 2,
		Summary:   "keep the ready jobs of every grouped queue in a list per group, which a claim takes with one pop, moving them from the sorted set of layout 1",
		NotForced: "their claims read grouped jobs only from the sorted set this step empties, and would drop the groups it moved from the rotation",
		run:       migrateGroupLists},
}

// LayoutStatus is what Layout reports of the data in Redis.
type LayoutStatus struct {
	// Stored is the layout of the data: the stored version, 0 when hopper
	// data exists without one (written before v0.1.0), or LayoutVersion
	// on a fresh Redis (a Store stores it on its first call).
	Stored int
	// Marked reports whether the layout key exists.
	Marked bool
	// Fresh reports that the prefix holds no hopper data and no layout.
	Fresh bool
	// Current is LayoutVersion, what this release writes.
	Current int
	// OldestReadable is the oldest layout this release runs on
	// (OldestReadableLayout).
	OldestReadable int
	// Pending lists the steps Migrate would run, in order; empty when the
	// data is current (or newer) and no forced migration left steps to
	// run again (Forced).
	Pending []MigrationStep
	// Forced reports that a migration ran while workers of an older
	// release were alive (MigrateOpts.Force): what they wrote since may be
	// in the older layout, so its steps stay in Pending, and the next
	// Migrate runs them again (each step is idempotent). The next Migrate
	// that finds no such worker alive clears it.
	Forced bool
	// OldWorkers lists the live workers of releases that write an older
	// layout than Current (their record has no or an older layout
	// version), sorted by ID. Migrate refuses to run while there are any,
	// unless forced.
	OldWorkers []OldWorker
	// Err is why a Store refuses this data (it wraps ErrLayout), or nil
	// when a Store runs on it.
	Err error
}

// OldWorker is a live worker process of an older release.
type OldWorker struct {
	ID, Host string
	PID      int
	// Layout is the layout its release writes: 0 for a release before
	// v0.1.0, whose record carries none; -1 for a record that does not
	// decode (Host empty and PID 0 then), which Migrate counts as an old
	// worker's.
	Layout int
}

// Layout reports the layout of the data in Redis, the migrations pending
// and the live workers of older releases. It reads only, and works on a
// Store whose start-up check refused the layout. Safe for concurrent use.
func (s *Store) Layout(ctx context.Context) (LayoutStatus, error) {
	if err := s.prepareAdmin(ctx); err != nil {
		return LayoutStatus{}, err
	}
	stored, marked, fresh, err := s.readLayout(ctx, nil)
	if err != nil {
		if errors.Is(err, ErrLayout) {
			return LayoutStatus{}, err
		}
		return LayoutStatus{}, wrap("layout", err)
	}
	st := LayoutStatus{Stored: stored, Marked: marked, Fresh: fresh, Current: LayoutVersion,
		OldestReadable: oldestReadable, Err: layoutErr(stored)}
	from := stored
	if redo, ok, err := s.layoutRedo(ctx); err != nil {
		return LayoutStatus{}, err
	} else if ok {
		st.Forced, from = true, min(from, redo)
	}
	for _, m := range migrations {
		if m.From >= from && m.To <= LayoutVersion {
			st.Pending = append(st.Pending, m)
		}
	}
	if st.OldWorkers, err = s.oldWorkers(ctx); err != nil {
		return LayoutStatus{}, err
	}
	return st, nil
}

// MigrateOpts are the options of Migrate. The zero value migrates.
type MigrateOpts struct {
	// DryRun reports what each step would do, and changes nothing.
	DryRun bool
	// Force migrates while workers of an older release are alive. They
	// keep running, but what they write afterwards is in the older layout:
	// run Migrate again once they are gone. A step that cannot run past
	// them (step 1 -> 2: workers of layout 1 would drop the groups it
	// moves) is not forced: Migrate runs the steps before it, then
	// returns an error wrapping ErrOldWorkers.
	Force bool
	// Progress, when set, receives a line as each step starts ("step 0 ->
	// 1: <summary>"), then one per queue or thing it changes (or would
	// change), indented by four spaces, or "    nothing to change". Called
	// from the goroutine of Migrate.
	Progress func(string)
}

// MigrateReport is what Migrate did.
type MigrateReport struct {
	// From is the layout before, To after (the same when nothing ran, or
	// in a dry run).
	From, To int
	// Steps lists the steps run (or that would run, in a dry run), in
	// order.
	Steps []StepReport
	// AlreadyCurrent reports that no step was pending.
	AlreadyCurrent bool
	// DryRun echoes MigrateOpts.DryRun.
	DryRun bool
	// OldWorkers lists the live workers of older releases found before
	// starting (Migrate refused unless forced).
	OldWorkers []OldWorker
}

// StepReport is what one step did.
type StepReport struct {
	Step MigrationStep
	// Changes lists what it changed (or would change), one line each;
	// empty when there was nothing to do.
	Changes []string
}

// ErrOldWorkers is wrapped by the error of Migrate when live workers of
// an older release are registered and MigrateOpts.Force is not set.
var ErrOldWorkers = errors.New("redisstore: workers of an older hopper release are running")

// migrateHook, when set (tests), runs after each queue a step changed;
// an error stops the step there, as an interrupted run would.
var migrateHook func(queue string) error

// migrateReadHook, when set (tests), runs between reading a queue's
// settings and writing them again, where a concurrent change may land.
var migrateReadHook func(queue string)

// Migrate brings the data in Redis to LayoutVersion: it runs every pending
// step in order, then stores the layout version (last, so a run cut short
// leaves the old version stored and the next run resumes; each step is
// idempotent). Producers and workers of this release may keep running
// meanwhile: a step changes each queue in atomic script calls (step
// 0 -> 1 with a compare-and-swap, so a concurrent settings change is
// never lost). It refuses, with an error wrapping ErrOldWorkers, while
// live workers of an older release are registered, unless opts.Force
// (which stops before step 1 -> 2). It refuses a layout
// newer than this release's (ErrLayout). On a current Redis it changes
// nothing and reports AlreadyCurrent; on a fresh one it stores the
// current layout. After it succeeds, a Store whose check refused the
// layout checks again on its next call. Safe for concurrent use; two
// Migrate calls at once do the same work twice, harmlessly.
func (s *Store) Migrate(ctx context.Context, opts MigrateOpts) (MigrateReport, error) {
	st, err := s.Layout(ctx)
	if err != nil {
		return MigrateReport{}, err
	}
	rep := MigrateReport{From: st.Stored, To: st.Stored, DryRun: opts.DryRun, OldWorkers: st.OldWorkers}
	if st.Stored > LayoutVersion {
		return rep, st.Err
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	if len(st.Pending) == 0 {
		rep.AlreadyCurrent = true
		if !st.Marked && !opts.DryRun {
			if err := s.rdb.SetNX(ctx, s.g.layoutKey(), strconv.Itoa(LayoutVersion), 0).Err(); err != nil {
				return rep, wrap("store the layout", err)
			}
		}
		return rep, nil
	}
	if len(st.OldWorkers) > 0 && !opts.Force && !opts.DryRun {
		return rep, fmt.Errorf("%w: %s; stop them (or upgrade them to %s) and migrate again, or force it",
			ErrOldWorkers, describeWorkers(st.OldWorkers), layoutWrittenBy)
	}
	var refused error
	for _, m := range st.Pending {
		if m.NotForced != "" && len(st.OldWorkers) > 0 && !opts.DryRun {
			// The steps before it ran and stay pending (below).
			refused = fmt.Errorf("%w: %s; step %d -> %d cannot be forced past them: %s. Stop them (a worker's record expires within its heartbeat TTL), then run the migration again",
				ErrOldWorkers, describeWorkers(st.OldWorkers), m.From, m.To, m.NotForced)
			break
		}
		progress(fmt.Sprintf("step %d -> %d: %s", m.From, m.To, m.Summary))
		changes, err := m.run(ctx, s, opts.DryRun, func(line string) { progress("    " + line) })
		rep.Steps = append(rep.Steps, StepReport{Step: m, Changes: changes})
		if err == nil && len(changes) == 0 {
			progress("    nothing to change")
		}
		if err != nil {
			return rep, fmt.Errorf("redisstore: migrate layout %d to %d: %w", m.From, m.To, err)
		}
		if opts.DryRun {
			continue
		}
		// Last: the step's work is all done. A step run again (Forced)
		// leaves a newer stored layout as it is.
		if m.To > rep.To {
			if err := s.rdb.Set(ctx, s.g.layoutKey(), strconv.Itoa(m.To), 0).Err(); err != nil {
				return rep, wrap("store the layout", err)
			}
			rep.To = m.To
			s.layoutAt.Store(int32(m.To))
		}
	}
	if !opts.DryRun {
		// Forced past live workers of an older release: what they write
		// from now on may be in the older layout, so the steps stay
		// pending (Layout) until a Migrate runs them with none alive.
		if len(st.OldWorkers) > 0 && len(rep.Steps) > 0 {
			first := st.Pending[0].From
			if err := s.rdb.Set(ctx, s.g.layoutRedoKey(), strconv.Itoa(first), 0).Err(); err != nil {
				return rep, wrap("store the steps to run again", err)
			}
		} else if st.Forced {
			if err := s.rdb.Del(ctx, s.g.layoutRedoKey()).Err(); err != nil {
				return rep, wrap("clear the steps to run again", err)
			}
		}
		s.checkMu.lockAlways()
		if errors.Is(s.checkErr, ErrLayout) {
			s.checkErr = nil
		}
		s.checkMu.unlock()
	}
	return rep, refused
}

// layoutRedo returns the From of the first migration step a forced
// migration left to run again, and whether there is one.
func (s *Store) layoutRedo(ctx context.Context) (int, bool, error) {
	v, err := s.rdb.Get(ctx, s.g.layoutRedoKey()).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wrap("layout", err)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		// Unreadable: every step runs again, which each allows.
		return 0, true, nil
	}
	return n, true, nil
}

// describeWorkers names workers for a message.
func describeWorkers(ws []OldWorker) string {
	parts := make([]string, 0, len(ws))
	for i, w := range ws {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ws)-i))
			break
		}
		if w.Layout < 0 {
			parts = append(parts, fmt.Sprintf("%s (a record that does not decode)", w.ID))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (host %s, pid %d, layout %d)", w.ID, w.Host, w.PID, w.Layout))
	}
	return fmt.Sprintf("%d live: %s", len(ws), strings.Join(parts, ", "))
}

// oldWorkers lists the live workers whose records carry an older layout.
func (s *Store) oldWorkers(ctx context.Context) ([]OldWorker, error) {
	recs, unreadable, err := s.liveWorkerRecords(ctx)
	if err != nil {
		return nil, err
	}
	var out []OldWorker
	for _, r := range recs {
		if r.Layout < LayoutVersion {
			out = append(out, OldWorker{ID: r.ID, Host: r.Host, PID: r.PID, Layout: r.Layout})
		}
	}
	// A record that does not decode is of no release this one knows:
	// an old worker (Layout -1), which Force lets Migrate run past.
	for _, u := range unreadable {
		out = append(out, OldWorker{ID: u.id, Layout: -1})
	}
	slices.SortFunc(out, func(a, b OldWorker) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// rateTermsSince names the release whose rate terms step 0 -> 1 writes.
const rateTermsSince = "v0.1.0"

// migrateConfigs is step 0 -> 1: a queue whose settings a release before
// v0.1.0 wrote lacks, in its marks, the rate terms this release derives
// from them (store.RateTerms: the sliding window's guard, the smooth
// pace; for the queue's and the groups' rate). Each such queue (and
// partition) gets its settings written again, unchanged, by the script
// SetQueueConfig runs, as a compare-and-swap on the settings read: a
// concurrent change wins, and the queue is read again.
func migrateConfigs(ctx context.Context, s *Store, dry bool, progress func(string)) ([]string, error) {
	queues, err := s.migrationQueues(ctx)
	if err != nil {
		return nil, err
	}
	var changes []string
	for _, q := range queues {
		changed, err := s.migrateConfig(ctx, q, dry)
		if err != nil {
			return changes, fmt.Errorf("queue %q: %w", q, err)
		}
		if !changed {
			continue
		}
		line := fmt.Sprintf("queue %s: settings written again with the rate terms of %s", q, rateTermsSince)
		if dry {
			line = fmt.Sprintf("queue %s: would write its settings again with the rate terms of %s", q, rateTermsSince)
		}
		changes = append(changes, line)
		progress(line)
		if !dry && migrateHook != nil {
			if err := migrateHook(q); err != nil {
				return changes, err
			}
		}
	}
	return changes, nil
}

// migrationQueues returns the registered queues (and partitions) a step
// goes over, sorted: those whose names this release writes (another name
// has nothing this release reads).
func (s *Store) migrationQueues(ctx context.Context) ([]string, error) {
	all, err := s.rdb.SMembers(ctx, s.g.queues).Result()
	if err != nil {
		return nil, wrap("list queues", err)
	}
	queues := slices.DeleteFunc(all, func(q string) bool { return store.ValidateQueue(q) != nil })
	slices.Sort(queues)
	return queues, nil
}

// migrateConfig brings one queue's marks up to date, and reports whether
// it had to (or, with dry, would).
func (s *Store) migrateConfig(ctx context.Context, queue string, dry bool) (bool, error) {
	k := s.queueKeys(queue)
	for range 10 {
		conf, err := s.rdb.HGetAll(ctx, k.conf).Result()
		if err != nil {
			return false, wrap("read settings", err)
		}
		if len(conf) == 0 {
			return false, nil // never configured: the scripts' defaults
		}
		cfg, err := parseConf(conf)
		if err != nil {
			return false, err
		}
		want := configArgs(cfg)
		marks, err := s.rdb.HMGet(ctx, k.marks, configTermFields...).Result()
		if err != nil {
			return false, wrap("read marks", err)
		}
		if termsMatch(marks, want[configSettings:]) {
			return false, nil
		}
		if dry {
			return true, nil
		}
		if migrateReadHook != nil {
			migrateReadHook(queue)
		}
		args := append(want, want[:configSettings]...)
		sh, err := s.runQ(ctx, fullScript("config"), queue, args...).Text()
		if err != nil {
			return false, wrap("write settings", err)
		}
		if sh != "!" {
			s.shapes.set(queue, parseShape(sh))
			return true, nil
		}
		// Changed meanwhile: read again (a change by this release writes
		// the terms, and the next round finds nothing to do).
	}
	return false, errors.New("its settings kept changing while the migration read them; run it again")
}

// configTermFields are the marks' fields of configArgs' terms, in order
// (lua/config.lua).
var configTermFields = []string{"rwin", "riv", "rtol", "gwin", "giv", "gtol", "rg", "rlead", "glead"}

// confFields are conf's fields of configArgs' settings, in order.
var confFields = []string{"paused", "maxrun", "rate", "period", "ret", "ev", "gmax", "grate", "gperiod", "ki",
	"rsm", "rb", "gsm", "gb"}

// termsMatch reports whether the marks read hold the terms wanted (a
// missing field is "0", as config.lua deletes zero terms).
func termsMatch(marks []any, want []any) bool {
	for i, w := range want {
		got, _ := marks[i].(string)
		if got == "" {
			got = "0"
		}
		if got != fmt.Sprint(w) {
			return false
		}
	}
	return true
}

// parseConf reads a queue's settings from its conf hash (the inverse of
// configArgs' settings).
func parseConf(conf map[string]string) (store.QueueConfig, error) {
	var cfg store.QueueConfig
	for _, f := range confFields {
		v, ok := conf[f]
		if !ok {
			continue
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return cfg, fmt.Errorf("%w: settings field %s holds %q", errCorrupt, f, v)
		}
		switch f {
		case "paused":
			cfg.Paused = x == 1
		case "maxrun":
			cfg.MaxRunning = int(x)
		case "rate":
			cfg.RateLimit = int(x)
		case "period":
			cfg.RatePeriod = msDur(x)
		case "ret":
			cfg.Retention = msDur(x)
		case "ev":
			cfg.EventsMaxLen = int(x)
		case "gmax":
			cfg.GroupMaxRunning = int(x)
		case "grate":
			cfg.GroupRateLimit = int(x)
		case "gperiod":
			cfg.GroupRatePeriod = msDur(x)
		case "ki":
			cfg.KindIndex = x == 1
		case "rsm":
			cfg.RateSmooth = x == 1
		case "rb":
			cfg.RateBurst = int(x)
		case "gsm":
			cfg.GroupRateSmooth = x == 1
		case "gb":
			cfg.GroupRateBurst = int(x)
		}
	}
	return cfg, nil
}
