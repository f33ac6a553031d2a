package sdktest_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
	"github.com/hopperq/hopper/store"
)

// sumInt adds the int64 points of a counter, up-down counter or gauge whose
// attributes match want.
func sumInt(t testing.TB, m metricdata.Metrics, want map[attribute.Key]string) int64 {
	t.Helper()
	var n int64
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			if match(p.Attributes, want) {
				n += p.Value
			}
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			if match(p.Attributes, want) {
				n += p.Value
			}
		}
	default:
		t.Fatalf("metric %s has data %T, want int64 sum or gauge", m.Name, m.Data)
	}
	return n
}

// histCount adds the counts of a float64 histogram's points whose attributes
// match want.
func histCount(t testing.TB, m metricdata.Metrics, want map[attribute.Key]string) uint64 {
	t.Helper()
	d, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("metric %s has data %T, want a float64 histogram", m.Name, m.Data)
	}
	var n uint64
	for _, p := range d.DataPoints {
		if match(p.Attributes, want) {
			n += p.Count
		}
	}
	return n
}

func TestMetricsMatchJobsRun(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		reader, mp := newMeterProvider(t)
		ctx := t.Context()
		c := hopper.NewClient(s, nil)
		w := hopper.NewWorker(s, testConfig())
		w.Use(middleware.Metrics(&middleware.MetricsConfig{MeterProvider: mp}))
		var acked atomic.Int32
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			if err := echoHandler(ctx, j); err != nil {
				return err
			}
			acked.Add(1)
			return nil
		})
		running := make(chan struct{}, 2)
		release := make(chan struct{})
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Block]) error {
			running <- struct{}{}
			<-release
			return nil
		})
		startWorker(t, w)

		// 10 jobs, 3 failing once.
		args := make([]Echo, 10)
		for i := range args {
			args[i].N = i
			if i < 3 {
				args[i].Fail = []int{1}
			}
		}
		if _, err := hopper.EnqueueMany(ctx, c, args, &hopper.EnqueueOpts{MaxRetries: 3}); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, 10*time.Second, "10 jobs acked", func() bool { return acked.Load() == 10 })
		echo := map[attribute.Key]string{kSystem: "hopper", kOpName: "process", kDest: "default", kKind: "echo"}
		var got map[string]metricdata.Metrics
		testutil.EventuallyTrue(t, 10*time.Second, "13 attempts counted", func() bool {
			got = collect(t, reader)
			m, ok := got[middleware.MetricConsumedMessages]
			return ok && sumInt(t, m, echo) == 13
		})
		with := func(kv ...string) map[attribute.Key]string {
			m := map[attribute.Key]string{}
			for k, v := range echo {
				m[k] = v
			}
			for i := 0; i < len(kv); i += 2 {
				m[attribute.Key(kv[i])] = kv[i+1]
			}
			return m
		}
		consumed := got[middleware.MetricConsumedMessages]
		if n := sumInt(t, consumed, with("hopper.job.outcome", "ack")); n != 10 {
			t.Errorf("%s{outcome=ack} = %d, want 10", consumed.Name, n)
		}
		if n := sumInt(t, consumed, with("hopper.job.outcome", "retry", "error.type", "planned")); n != 3 {
			t.Errorf("%s{outcome=retry, error.type=planned} = %d, want 3", consumed.Name, n)
		}
		if consumed.Unit != "{message}" {
			t.Errorf("%s unit %q, want {message}", consumed.Name, consumed.Unit)
		}
		dur := got[middleware.MetricProcessDuration]
		if n := histCount(t, dur, with("hopper.job.outcome", "ack")); n != 10 || dur.Unit != "s" {
			t.Errorf("%s{outcome=ack} has %d samples in %q, want 10 in s", dur.Name, n, dur.Unit)
		}
		if n := histCount(t, dur, with("hopper.job.outcome", "retry")); n != 3 {
			t.Errorf("%s{outcome=retry} has %d samples, want 3", dur.Name, n)
		}
		wait := got[middleware.MetricWaitDuration]
		if n := histCount(t, wait, echo); n != 13 || wait.Unit != "s" {
			t.Errorf("%s has %d samples in %q, want 13 (one per attempt) in s", wait.Name, n, wait.Unit)
		}
		active := got[middleware.MetricActiveJobs]
		if n := sumInt(t, active, echo); n != 0 {
			t.Errorf("%s = %d after the jobs finished, want 0", active.Name, n)
		}

		// Two blocking jobs: two in flight while they run.
		if _, err := hopper.EnqueueMany(ctx, c, []Block{{1}, {2}}, nil); err != nil {
			t.Fatal(err)
		}
		testutil.Receive(t, running, 10*time.Second, "first blocking job")
		testutil.Receive(t, running, 10*time.Second, "second blocking job")
		block := map[attribute.Key]string{kDest: "default", kKind: "block"}
		if n := sumInt(t, collect(t, reader)[middleware.MetricActiveJobs], block); n != 2 {
			t.Errorf("%s{kind=block} = %d while two run, want 2", middleware.MetricActiveJobs, n)
		}
		close(release)
		testutil.EventuallyTrue(t, 10*time.Second, "no job in flight", func() bool {
			return sumInt(t, collect(t, reader)[middleware.MetricActiveJobs], block) == 0
		})
	})
}

func TestMetricsWaitDurationFromDueTime(t *testing.T) {
	reader, mp := newMeterProvider(t)
	h := middleware.Metrics(&middleware.MetricsConfig{MeterProvider: mp})(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return nil }))
	now := time.Now()
	// Enqueued an hour ago, due (after a retry backoff) ten minutes ago.
	job := &hopper.JobRecord{ID: "j", Queue: "q", Kind: "k", Attempt: 2, JobSpec: hopper.JobSpec{MaxRetries: 5}, EnqueuedAt: now.Add(-time.Hour), RunAt: now.Add(-10 * time.Minute)}
	if err := h.Handle(t.Context(), job); err != nil {
		t.Fatal(err)
	}
	d := collect(t, reader)[middleware.MetricWaitDuration].Data.(metricdata.Histogram[float64])
	if len(d.DataPoints) != 1 || d.DataPoints[0].Count != 1 {
		t.Fatalf("wait histogram %+v, want one sample", d.DataPoints)
	}
	if s := d.DataPoints[0].Sum; s < 600 || s > 1200 {
		t.Errorf("wait %.1fs, want about 600s: from the due time, not the enqueue time", s)
	}
}

func TestQueueMetricsReadStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		reader, mp := newMeterProvider(t)
		ctx := t.Context()
		c := hopper.NewClient(s, nil)
		if _, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}, {N: 3}}, &hopper.EnqueueOpts{Queue: "q1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}}, &hopper.EnqueueOpts{Queue: "q2", Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		unregister, err := middleware.RegisterQueueMetrics(s, &middleware.QueueMetricsConfig{MeterProvider: mp})
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, reader)
		jobs, ok := got[middleware.MetricQueueJobs]
		if !ok || jobs.Unit != "{job}" {
			t.Fatalf("no %s metric in {job} (have %v)", middleware.MetricQueueJobs, jobs)
		}
		if _, ok := jobs.Data.(metricdata.Gauge[int64]); !ok {
			t.Errorf("%s is %T, want a gauge", jobs.Name, jobs.Data)
		}
		for _, q := range []string{"q1", "q2"} {
			for _, st := range store.States {
				want := int64(0)
				switch {
				case q == "q1" && st == hopper.StateReady:
					want = 3
				case q == "q2" && st == hopper.StatePending:
					want = 2
				}
				sel := map[attribute.Key]string{kSystem: "hopper", kDest: q, kState: string(st)}
				if n := sumInt(t, jobs, sel); n != want {
					t.Errorf("%s{queue=%s, state=%s} = %d, want %d", jobs.Name, q, st, n, want)
				}
			}
		}
		lat, ok := got[middleware.MetricQueueLatency].Data.(metricdata.Gauge[float64])
		if !ok || len(lat.DataPoints) != 2 {
			t.Errorf("%s = %+v, want a gauge point per queue", middleware.MetricQueueLatency, got[middleware.MetricQueueLatency].Data)
		}

		if err := unregister(); err != nil {
			t.Fatal(err)
		}
		got = collect(t, reader)
		if m, ok := got[middleware.MetricQueueJobs]; ok && len(m.Data.(metricdata.Gauge[int64]).DataPoints) > 0 {
			t.Errorf("%s still reported after unregister", middleware.MetricQueueJobs)
		}
	})
}

// failingStore fails GetQueueStats for one queue and blocks it for another
// until the caller gives up.
type failingStore struct {
	hopper.Store
	store.Admin
}

func (failingStore) ListQueues(context.Context) ([]string, error) {
	return []string{"bad", "good", "slow"}, nil
}

func (f failingStore) GetQueueStats(ctx context.Context, q string) (hopper.QueueStats, error) {
	switch q {
	case "bad":
		return hopper.QueueStats{}, errors.New("stats broke")
	case "slow":
		<-ctx.Done()
		return hopper.QueueStats{}, ctx.Err()
	}
	return hopper.QueueStats{Queue: q, Counts: store.StateCounts{Ready: 7}}, nil
}

func TestQueueMetricsReportStoreErrors(t *testing.T) {
	reader, mp := newMeterProvider(t)
	_, err := middleware.RegisterQueueMetrics(failingStore{}, &middleware.QueueMetricsConfig{MeterProvider: mp, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	err = reader.Collect(context.Background(), &rm)
	if err == nil || !errorContains(err, "stats broke") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Collect returned %v, want the failing and the late queue reported", err)
	}
	var good int64 = -1
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == middleware.MetricQueueJobs {
				good = sumInt(t, m, map[attribute.Key]string{kDest: "good", kState: "ready"})
			}
		}
	}
	if good != 7 {
		t.Errorf("ready jobs of the healthy queue = %d, want 7 reported despite the others", good)
	}
}

func errorContains(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}

func TestQueueMetricsOnlyListedQueues(t *testing.T) {
	reader, mp := newMeterProvider(t)
	_, err := middleware.RegisterQueueMetrics(failingStore{}, &middleware.QueueMetricsConfig{MeterProvider: mp, Queues: []string{"good"}})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, reader) // fails the test if the bad or slow queue were read
	m := got[middleware.MetricQueueJobs]
	if n := len(m.Data.(metricdata.Gauge[int64]).DataPoints); n != len(store.States) {
		t.Errorf("%d points, want one per state of the one queue listed", n)
	}
}
