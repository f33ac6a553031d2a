package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// statsConcurrency bounds the store calls one overview makes at once.
const statsConcurrency = 8

// queueReadTimeout bounds the reads of one queue's row of the overview: a
// queue whose shard does not answer (a frozen master) is shown as
// unavailable rather than holding the page.
const queueReadTimeout = 2 * time.Second

// queueRow is one queue of the overview.
type queueRow struct {
	Name    string
	Paused  bool
	Counts  store.StateCounts
	Latency time.Duration
	Chart   *chart         // sparkline of the last hour
	series  []minuteCounts // over the overview's range
	// Unavailable: the store could not read the queue for now (its
	// shard down or not answering); the row has no numbers.
	Unavailable bool
}

// overview is every queue's counts and throughput, with totals.
type overview struct {
	Queues      []queueRow
	Totals      store.StateCounts
	MaxLatency  time.Duration
	PausedCount int
	Chart       *chart      // throughput of all queues over Range
	Range       chartRange  // the window of Chart
	Outbox      *outboxView // nil without Config.Outbox
	// Unavailable names the queues the store could not read for now: a
	// failing shard stalls its own queues, not the page.
	Unavailable []string
}

// loadOverview reads the stats and throughput of the named queues, a few
// at a time: each queue's last hour (its sparkline) and the totals over
// rng.
func (d *dash) loadOverview(ctx context.Context, names []string, rng chartRange) (*overview, error) {
	now := d.cfg.Now()
	since := windowStart(now)
	if s := rangeStart(rng, now); s.Before(since) {
		since = s
	}
	rows := make([]queueRow, len(names))
	outbox := make(chan *outboxView, 1)
	go func(ctx context.Context) { outbox <- d.loadOutbox(ctx) }(ctx)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(statsConcurrency)
	for i, name := range names {
		g.Go(func() error {
			qctx, cancel := context.WithTimeout(ctx, queueReadTimeout)
			defer cancel()
			st, err := d.ins.GetQueueStats(qctx, name)
			var points []hopper.ThroughputPoint
			if err == nil {
				points, err = d.ins.GetThroughput(qctx, name, since)
			}
			if err != nil && ctx.Err() == nil && (storeTemporary(err) || errors.Is(err, context.DeadlineExceeded)) {
				d.cfg.Logger.Warn("dashboard: a queue could not be read; shown as unavailable", "queue", name, "error", err)
				rows[i] = queueRow{Name: name, Unavailable: true}
				return nil
			}
			if err != nil {
				return err
			}
			rows[i] = queueRow{
				Name:    name,
				Paused:  st.Config.Paused,
				Counts:  st.Counts,
				Latency: st.Latency,
				Chart:   newChart(series(points, now), sparkChartW, sparkChartH),
				series:  seriesIn(rng, points, now),
			}
			return nil
		})
	}
	err := g.Wait()
	ob := <-outbox
	if err != nil {
		return nil, err
	}
	ov := &overview{Queues: rows, Outbox: ob, Range: rng}
	var total []minuteCounts
	for _, q := range rows {
		if q.Unavailable {
			ov.Unavailable = append(ov.Unavailable, q.Name)
			continue
		}
		ov.Totals.Add(q.Counts)
		ov.MaxLatency = max(ov.MaxLatency, q.Latency)
		if q.Paused {
			ov.PausedCount++
		}
		total = addSeries(total, q.series)
	}
	if total == nil {
		total = seriesIn(rng, nil, now)
	}
	ov.Chart = newChart(total, bigChartW, bigChartH)
	return ov, nil
}

// storeTemporary reports whether a store's error says it may clear by
// itself (a method StoreTemporary() bool, as redisstore's errors have).
func storeTemporary(err error) bool {
	temporary, says := storeSays(err)
	return says && temporary
}

// storeUnreachable reports whether a store's error says the store could
// not be reached for now (a method StoreUnreachable() bool, as
// redisstore's errors have: Redis down, restarting, loading its data or
// failing over), not that it answered with an error.
func storeUnreachable(err error) bool {
	var u interface{ StoreUnreachable() bool }
	return errors.As(err, &u) && u.StoreUnreachable()
}

// storeFinal reports whether a store's error says it will not clear by
// itself (StoreTemporary reports false, as redisstore's errors of a
// missing ACL right or a refused login do).
func storeFinal(err error) bool {
	temporary, says := storeSays(err)
	return says && !temporary
}

// storeSays reads what a store's error says of itself: whether it may
// clear by itself, when it has a method StoreTemporary() bool (says).
func storeSays(err error) (temporary, says bool) {
	var t interface{ StoreTemporary() bool }
	if !errors.As(err, &t) {
		return false, false
	}
	return t.StoreTemporary(), true
}

// queuesPage is the data of the overview page.
type queuesPage struct {
	base
	*overview
}

// Ranges are the chart's windows, for the range links.
func (queuesPage) Ranges() []chartRange { return chartRanges }

// serveQueues renders the overview: every queue's counts per state,
// pause state, latency and throughput, with totals.
func (d *dash) serveQueues(w http.ResponseWriter, r *http.Request) {
	names, err := d.ins.ListQueues(r.Context())
	if err != nil {
		d.storeError(w, r, "listing queues", err)
		return
	}
	rng := rangeOf(r.URL.Query().Get("range"))
	ov, err := d.loadOverview(r.Context(), names, rng)
	if err != nil {
		d.storeError(w, r, "reading queue stats", err)
		return
	}
	b := d.base(r, "Queues", "queues")
	b.Live = d.liveURL("")
	if b.Live != "" && rng.Key != chartRanges[0].Key {
		b.Live += "?range=" + rng.Key
	}
	d.render(w, r, http.StatusOK, "queues", queuesPage{base: b, overview: ov})
}

// serveQueueRedirect sends /queues/{queue} to the queue's ready jobs.
func (d *dash) serveQueueRedirect(w http.ResponseWriter, r *http.Request) {
	queue, ok := d.queueParam(w, r)
	if !ok {
		return
	}
	http.Redirect(w, r, d.queuePath(queue, hopper.StateReady), http.StatusFound)
}

// queueParam returns the {queue} of the route, answering 404 when it is not
// a valid queue name.
func (d *dash) queueParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	q := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), q); err != nil {
		d.renderError(w, r, http.StatusNotFound, "No such queue", err.Error())
		return "", false
	}
	return q, true
}

// partitionOf returns the queue that name is a partition of ("mail" of
// "mail~1") when the store partitions that queue, else "". A partition
// shares its queue's settings: they are set on the queue.
func (d *dash) partitionOf(ctx context.Context, name string) string {
	base, i, ok := store.SplitPartition(name)
	if !ok {
		return ""
	}
	p, ok := store.As[store.Partitioner](d.ins.Store())
	if !ok {
		return ""
	}
	if parts, err := p.Partitions(ctx, base); err != nil || i >= len(parts) {
		return ""
	}
	return base
}

// settingsOnQueue refuses to change the settings of a partition, which
// are its queue's (see partitionOf), saying where to change them.
func (d *dash) settingsOnQueue(ctx context.Context, queue, what string) error {
	base := d.partitionOf(ctx, queue)
	if base == "" {
		return nil
	}
	return &userError{http.StatusBadRequest, "Set on the queue " + base,
		fmt.Sprintf("%s is a partition of %s, and a partitioned queue's partitions share its settings: %s on %s.", queue, base, what, base)}
}

// checkQueue returns an error wrapping hopper.ErrInvalidQueue for a name
// the store refuses: one store.ValidateQueue refuses, or on a store that
// partitions queues (store.Partitioner) the name of a partition that does
// not exist ("mail~1" of a queue mail that is not partitioned). When the
// store cannot say, it returns nil: the store call that follows reports
// that failure, and storeError answers a refusal as this does.
func (d *dash) checkQueue(ctx context.Context, name string) error {
	if err := store.ValidateQueue(name); err != nil {
		return err
	}
	base, i, ok := store.SplitPartition(name)
	if !ok {
		return nil
	}
	p, ok := store.As[store.Partitioner](d.ins.Store())
	if !ok {
		return nil
	}
	parts, err := p.Partitions(ctx, base)
	switch {
	case err != nil:
		return nil
	case len(parts) == 0:
		return fmt.Errorf("%w: %q names a partition of %q, which is not partitioned", hopper.ErrInvalidQueue, name, base)
	case i >= len(parts):
		return fmt.Errorf("%w: %q: queue %q has %d partitions, %s to %s", hopper.ErrInvalidQueue, name, base, len(parts), parts[0], parts[len(parts)-1])
	}
	return nil
}
