package upgradetest

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/upgradetest/evidence"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// producerRate is each producer's jobs a second.
const producerRate = "40"

// run is one rolling upgrade in progress.
type run struct {
	t              *testing.T
	ctx            context.Context
	rdb            *redis.Client
	ps             *procs
	b              builds
	addr, prefix   string
	oldVer, newVer string // the commits, recorded with every run
	garbage        int    // jobs found in the dead queue's garbage
}

// TestRollingUpgrade runs old and new workers and producers on one Redis
// under load, replaces the old workers one by one, stops the old
// producers, migrates the store, and then checks every job: none lost,
// none run to success twice, none stuck, dead jobs in garbage, workflows
// succeeded, groups in order, every schedule tick enqueued once.
func TestRollingUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("upgradetest: the rolling upgrade builds two trees and runs for about a minute; skipped with -short")
	}
	began := time.Now()
	root := moduleRoot(t)
	srv := redistest.Start(t, redistest.Private())
	b := build(t, root)
	t.Logf("built in %v; old sources: %s", b.took.Round(time.Millisecond), b.oldFrom)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := &run{
		t: t, ctx: ctx, rdb: srv.Client(t), ps: &procs{t: t}, b: b,
		addr: srv.Addr, prefix: redistest.Prefix(t),
		oldVer: oldCommit[:7], newVer: headVersion(root),
	}
	if r.newVer == r.oldVer {
		t.Fatalf("upgradetest: this checkout is the old commit %s itself: nothing to upgrade", oldCommit)
	}
	quiet := &redisstore.Config{Prefix: r.prefix, Logger: slog.New(slog.DiscardHandler)}

	oldWorkers, oldProducers := r.oldWorld()
	newProducer := r.producer(b.newProg, "new-p1", r.newVer)
	r.waitEvidence(30*time.Second, "the new producer enqueueing", func(s *snapshot) (bool, string) {
		return s.enqueued["new-p1"] >= 40, fmt.Sprintf("enqueued %v", s.enqueued)
	})
	newWorkers := r.replace(oldWorkers)
	for _, p := range oldProducers {
		r.ps.stop(p)
	}

	// The migration, with the new world running, and a while after it.
	before := r.snapshot()
	migrated := r.migrate()
	r.waitEvidence(60*time.Second, "the new world after the migration", func(s *snapshot) (bool, string) {
		return s.ran[r.newVer]-before.ran[r.newVer] >= 800 && len(s.ticks)-len(before.ticks) >= 2 &&
				s.enqueued["new-p1"]-before.enqueued["new-p1"] >= 200,
			fmt.Sprintf("runs by version %v, %d ticks, enqueued %v", s.ran, len(s.ticks), s.enqueued)
	})
	r.ps.stop(newProducer)

	ins := hopper.NewInspector(redisstore.New(r.rdb, quiet))
	drained := r.drain(ins)
	for _, w := range newWorkers {
		r.ps.stop(w)
	}

	s := r.snapshot()
	f := r.check(ins, s)
	// At a producer's steady rate, delayed jobs (0.5 to 5 s), retries
	// (1 s in retry) and workflows (a task delayed 1 s) always have some
	// in flight; a run where none were at the migration tests less than
	// it claims.
	inFlight := before.inFlight()
	for _, class := range []string{evidence.Delayed, evidence.Retried, evidence.Workflow} {
		if inFlight[class] == 0 {
			t.Errorf("no %s job in flight at the migration (%v): the run no longer tests what it says", class, inFlight)
		}
	}
	r.summary(s, f, summaryOf{migrated: migrated, before: before, inFlight: inFlight, drained: drained, began: began})
}

// oldWorld sets the queues up and starts the old world: three workers
// (each with its scheduler) and two producers, under load for a while.
func (r *run) oldWorld() (workers, producers []*proc) {
	r.t.Helper()
	r.runToEnd("setup", r.b.oldProg, "-mode", "setup")
	for i := 1; i <= 3; i++ {
		workers = append(workers, r.worker(r.b.oldProg, fmt.Sprintf("old-w%d", i), r.oldVer))
	}
	producers = []*proc{
		r.producer(r.b.oldProg, "old-p1", r.oldVer),
		r.producer(r.b.oldProg, "old-p2", r.oldVer),
	}
	r.waitEvidence(60*time.Second, "the old world under load", func(s *snapshot) (bool, string) {
		ranAll := s.worker["old-w1"] > 0 && s.worker["old-w2"] > 0 && s.worker["old-w3"] > 0
		return s.okRuns >= 800 && len(s.ticks) >= 2 && s.ok[firstWorkflowEnd(s)] > 0 && ranAll,
			fmt.Sprintf("%d successes, %d ticks, runs by worker %v", s.okRuns, len(s.ticks), s.worker)
	})
	return workers, producers
}

// replace stops the old workers one by one, each replaced by a new one
// that runs a few hundred jobs before the next old one stops.
func (r *run) replace(old []*proc) (workers []*proc) {
	r.t.Helper()
	for i, w := range old {
		took := r.ps.stop(w)
		name := fmt.Sprintf("new-w%d", i+1)
		workers = append(workers, r.worker(r.b.newProg, name, r.newVer))
		r.waitEvidence(30*time.Second, name+" running jobs", func(s *snapshot) (bool, string) {
			return s.worker[name] >= 200, fmt.Sprintf("runs by worker %v", s.worker)
		})
		r.t.Logf("replaced %s (stopped in %v) by %s", w.name, took.Round(time.Millisecond), name)
	}
	return workers
}

// drain waits until every job has ended and no queue holds anything but
// the doomed jobs in garbage, and returns how long that took.
func (r *run) drain(ins *hopper.Inspector) time.Duration {
	r.t.Helper()
	return r.waitEvidence(90*time.Second, "every job finished and every queue empty", func(s *snapshot) (bool, string) {
		if n, example := s.pending(); n > 0 {
			return false, fmt.Sprintf("%d jobs unfinished, e.g. %s", n, example)
		}
		if busy := r.busyQueues(ins, len(s.produced[evidence.Doomed])); busy != "" {
			return false, busy
		}
		return true, ""
	})
}

// check checks the final state: the evidence, the queues, garbage,
// settings and workflows in the store.
func (r *run) check(ins *hopper.Inspector, s *snapshot) figures {
	r.t.Helper()
	f, problems := s.verify()
	for _, p := range problems {
		r.t.Error(p)
	}
	if busy := r.busyQueues(ins, len(s.produced[evidence.Doomed])); busy != "" {
		r.t.Errorf("queues not empty after the workers stopped: %s", busy)
	}
	r.checkGarbage(ins, s.produced[evidence.Doomed])
	r.checkConfigs(ins)
	r.checkWorkflows(ins, s.produced[evidence.Workflow])
	if s.ran[r.oldVer] == 0 || s.ran[r.newVer] == 0 {
		r.t.Errorf("runs by version %v: want runs by both %s and %s", s.ran, r.oldVer, r.newVer)
	}
	if s.jobs() < 1000 {
		r.t.Errorf("only %d jobs produced", s.jobs())
	}
	return f
}

// summaryOf is what the summary needs beyond the final evidence.
type summaryOf struct {
	migrated string
	before   *snapshot // at the migration
	inFlight map[string]int
	drained  time.Duration
	began    time.Time
}

// summary logs the figures of the run.
func (r *run) summary(s *snapshot, f figures, o summaryOf) {
	byClass := make([]string, 0, len(evidence.Classes))
	for _, c := range evidence.Classes {
		if c != evidence.Workflow {
			byClass = append(byClass, fmt.Sprintf("%s %d", c, len(s.produced[c])))
		}
	}
	var enqueueErrors int64
	for _, n := range s.enqueueErrors {
		enqueueErrors += n
	}
	r.t.Logf("rolling upgrade: %d jobs (%s in %d workflows), %d schedule ticks\n"+
		"versions: old %s (3 workers, 2 producers), new %s (3 workers, 1 producer); 3 workers replaced one by one under load\n"+
		"migration: %s, the new workers running; in flight then: %v\n"+
		"runs: old %d, new %d (%d after the migration); enqueue errors %d (retried)\n"+
		"lost %d, twice %d, stuck 0 (drained %v after the producers stopped); retried jobs failing other than once %d, "+
		"dead jobs not run twice %d, dead in garbage %d of %d; delayed run early %d; tasks before a dependency %d; "+
		"group order breaks %d, overlaps %d; ticks run twice %d, missed %d\n"+
		"took %v (builds %v)",
		s.jobs(), strings.Join(byClass, ", "), len(s.produced[evidence.Workflow]), f.ticks,
		r.oldVer, r.newVer,
		o.migrated, o.inFlight,
		s.ran[r.oldVer], s.ran[r.newVer], s.ran[r.newVer]-o.before.ran[r.newVer], enqueueErrors,
		f.lost, f.twice, o.drained.Round(100*time.Millisecond), f.retriedWrong,
		f.doomedWrong, r.garbage, len(s.produced[evidence.Doomed]), f.early, f.earlyTasks,
		f.groupBreaks, f.overlap, f.tickDups, f.tickGaps,
		time.Since(o.began).Round(time.Second), r.b.took.Round(time.Second))
}

// worker starts a worker of bin named name.
func (r *run) worker(bin, name, version string) *proc {
	return r.ps.start(name, bin, "-mode", "worker", "-redis", r.addr, "-prefix", r.prefix, "-name", name, "-version", version)
}

// producer starts a producer of bin named name.
func (r *run) producer(bin, name, version string) *proc {
	return r.ps.start(name, bin, "-mode", "producer", "-redis", r.addr, "-prefix", r.prefix,
		"-name", name, "-version", version, "-rate", producerRate)
}

// runToEnd runs bin with args to its end, which must be a success.
func (r *run) runToEnd(what, bin string, args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
	defer cancel()
	args = append(args, "-redis", r.addr, "-prefix", r.prefix)
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("upgradetest: %s: %v\n%s", what, err, out)
	}
	return string(out)
}

// migrate runs the new hopper command's migration, checking the stored
// layout before (0, written before v0.1.0) and after (this release's), and
// returns what it did.
func (r *run) migrate() string {
	r.t.Helper()
	rs := redisstore.New(r.rdb, &redisstore.Config{Prefix: r.prefix, Logger: slog.New(slog.DiscardHandler)})
	before, err := rs.Layout(r.ctx)
	if err != nil {
		r.t.Fatalf("upgradetest: layout before the migration: %v", err)
	}
	if before.Fresh || before.Marked || before.Stored != 0 {
		r.t.Fatalf("upgradetest: layout before the migration %+v, want layout 0 (hopper data, no layout key)", before)
	}
	r.hopper("migrate", "status")
	start := time.Now()
	out := r.hopper("migrate", "up")
	took := time.Since(start)
	r.t.Logf("hopper migrate up (%v):\n%s", took.Round(time.Millisecond), out)
	after, err := rs.Layout(r.ctx)
	if err != nil {
		r.t.Fatalf("upgradetest: layout after the migration: %v", err)
	}
	if !after.Marked || after.Stored != redisstore.LayoutVersion || len(after.Pending) > 0 || after.Err != nil {
		r.t.Fatalf("upgradetest: layout after the migration %+v, want layout %d marked, nothing pending", after, redisstore.LayoutVersion)
	}
	return fmt.Sprintf("layout %d to %d by hopper migrate up in %v", before.Stored, after.Stored, took.Round(time.Millisecond))
}

// hopper runs the new hopper command on the store, which must succeed,
// and returns its output.
func (r *run) hopper(args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
	defer cancel()
	args = append(args, "--redis", "redis://"+r.addr+"/0", "--redis-prefix", r.prefix)
	out, err := exec.CommandContext(ctx, r.b.hopper, args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("upgradetest: hopper %s: %v\n%s\n%s", strings.Join(args, " "), err, out, r.ps.tails())
	}
	return strings.TrimSpace(string(out))
}

// checkConfigs checks that the queue settings the setup wrote survived
// the upgrade.
func (r *run) checkConfigs(ins *hopper.Inspector) {
	r.t.Helper()
	want := map[string]func(c *hopper.QueueConfig){
		evidence.QueueMain: func(c *hopper.QueueConfig) { c.RateLimit = evidence.MainRateLimit },
		evidence.QueueFlow: func(c *hopper.QueueConfig) { c.RateLimit, c.RateSmooth = evidence.FlowRateLimit, true },
		evidence.QueueGroups: func(c *hopper.QueueConfig) {
			c.GroupMaxRunning, c.GroupRateLimit = evidence.GroupMaxRunning, evidence.GroupRateLimit
		},
	}
	for q, set := range want {
		st, err := ins.GetQueueStats(r.ctx, q)
		if err != nil {
			r.t.Fatalf("upgradetest: stats of %s: %v", q, err)
		}
		got := st.Config
		set(&got) // what the setup set, over whatever else the store reports
		if got != st.Config {
			r.t.Errorf("queue %s settings after the upgrade: %+v, want the setup's %+v", q, st.Config, got)
		}
	}
}

// snapshot reads the evidence now.
func (r *run) snapshot() *snapshot {
	r.t.Helper()
	s, err := read(r.ctx, r.rdb)
	if err != nil {
		r.t.Fatalf("upgradetest: read the evidence: %v", err)
	}
	return s
}

// waitEvidence waits until cond holds for the evidence.
func (r *run) waitEvidence(timeout time.Duration, what string, cond func(*snapshot) (bool, string)) time.Duration {
	r.t.Helper()
	return r.ps.waitFor(timeout, what, func() (bool, string) { return cond(r.snapshot()) })
}

// busyQueues describes what waits in the queues: anything pending, ready,
// running or in retry, done jobs, and garbage beyond the doomed jobs of
// the dead queue; "" when nothing does.
func (r *run) busyQueues(ins *hopper.Inspector, doomed int) string {
	r.t.Helper()
	var busy []string
	for _, q := range evidence.Queues {
		st, err := ins.GetQueueStats(r.ctx, q)
		if err != nil {
			r.t.Fatalf("upgradetest: stats of %s: %v", q, err)
		}
		c := st.Counts
		garbage := int64(0)
		if q == evidence.QueueDead {
			garbage = int64(doomed)
		}
		if c.Pending+c.Ready+c.Unack+c.Retry+c.Done > 0 || c.Garbage != garbage {
			busy = append(busy, fmt.Sprintf("%s %+v (garbage want %d)", q, c, garbage))
		}
	}
	return strings.Join(busy, "; ")
}

// checkGarbage checks that the dead queue's garbage holds exactly the
// doomed jobs.
func (r *run) checkGarbage(ins *hopper.Inspector, doomed []string) {
	r.t.Helper()
	var got []string
	for off := 0; ; {
		page, err := ins.ListJobs(r.ctx, hopper.ListJobsOpts{Queue: evidence.QueueDead, State: hopper.StateGarbage, Offset: off, Limit: 1000})
		if err != nil {
			r.t.Fatalf("upgradetest: list garbage: %v", err)
		}
		for _, j := range page.Jobs {
			got = append(got, j.ID)
		}
		off += len(page.Jobs)
		if len(page.Jobs) == 0 || off >= page.Total {
			break
		}
	}
	slices.Sort(got)
	r.garbage = len(got)
	if !slices.Equal(got, doomed) {
		r.t.Errorf("garbage of %s holds %d jobs, want the %d doomed ones", evidence.QueueDead, len(got), len(doomed))
	}
}

// checkWorkflows checks that every workflow succeeded.
func (r *run) checkWorkflows(ins *hopper.Inspector, ids []string) {
	r.t.Helper()
	var bad []string
	for _, id := range ids {
		wf, err := ins.GetWorkflow(r.ctx, id)
		if err != nil {
			r.t.Fatalf("upgradetest: workflow %s: %v", id, err)
		}
		if wf.State != hopper.WorkflowSucceeded {
			bad = append(bad, fmt.Sprintf("%s is %s %v", id, wf.State, wf.Counts))
		}
	}
	if len(bad) > 0 {
		r.t.Errorf("%d of %d workflows did not succeed, e.g. %s", len(bad), len(ids), strings.Join(bad[:min(5, len(bad))], "; "))
	}
}

// firstWorkflowEnd is the payload ID of the last task of the first
// workflow produced, or "" before any.
func firstWorkflowEnd(s *snapshot) string {
	if len(s.produced[evidence.Workflow]) == 0 {
		return ""
	}
	return s.produced[evidence.Workflow][0] + "~z"
}

// headVersion names this checkout's commit, or "HEAD" without git.
func headVersion(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		return "HEAD"
	}
	return strings.TrimSpace(string(out))
}
