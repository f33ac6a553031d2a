package dashboard

import (
	"context"
	"strconv"
	"sync"

	"github.com/hopperq/hopper"
	hstore "github.com/hopperq/hopper/store"
)

// The worker of a job's last attempt. A failed attempt's worker is in the
// job's error history (the worker sends it with the failure); a running
// one's is in the workers registry. The store keeps no worker for an
// attempt that succeeded, so the job page finds it in the queue's event
// stream: the "started" event of that attempt names the worker that
// claimed it. The stream keeps the queue's last events only
// (QueueConfig.EventsMaxLen, 1,000 by default), and on Redis only those
// written while someone read the queue's events (a live feed open, a
// subscriber), so an older success, or one nobody watched, shows no
// worker. The answer never changes once found, so it is remembered
// (attemptWorkers), and the page's live refreshes do not read the stream
// again.

const (
	// workerLookRead is how many events one read of the lookup takes.
	workerLookRead = 500
	// workerLookMax bounds the events one lookup reads: a stream kept
	// longer is only searched this far from its oldest event.
	workerLookMax = 5000
	// attemptWorkersMax bounds the lookups remembered; the memory is
	// emptied when it is full.
	attemptWorkersMax = 4096
)

// attemptWorkers remembers the workers of finished attempts looked up in
// the event stream ("" for none found), by queue, job, attempt and start. The
// zero value is ready; it is safe for concurrent use.
type attemptWorkers struct {
	mu   sync.Mutex
	seen map[string]string
}

func (a *attemptWorkers) get(key string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w, ok := a.seen[key]
	return w, ok
}

func (a *attemptWorkers) put(key, worker string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen == nil || len(a.seen) >= attemptWorkersMax {
		a.seen = map[string]string{}
	}
	a.seen[key] = worker
}

// attemptWorker returns the worker of job's last attempt, when the store
// knows it: the live worker reporting it while it runs, the worker named
// by its start event once it succeeded; "" otherwise (see the top of this
// file).
func (d *dash) attemptWorker(ctx context.Context, job *hopper.JobRecord) string {
	switch job.State {
	case hopper.StateUnack:
		return d.runningWorker(ctx, job)
	case hopper.StateDone:
		return d.succeededWorker(ctx, job)
	}
	return ""
}

// succeededWorker looks the worker of job's last attempt up in its queue's
// event stream.
func (d *dash) succeededWorker(ctx context.Context, job *hopper.JobRecord) string {
	if d.events == nil || job.Attempt < 1 {
		return ""
	}
	// The start time too: a job requeued after it succeeded may run an
	// attempt of the same number again.
	key := job.Queue + "\x00" + job.ID + "\x00" + strconv.Itoa(job.Attempt) + "\x00" + strconv.FormatInt(job.AttemptedAt.UnixNano(), 10)
	if w, ok := d.attempts.get(key); ok {
		return w
	}
	from := map[string]string{job.Queue: hstore.FromStart}
	worker := ""
	for read := 0; read < workerLookMax; read += workerLookRead {
		evs, next, _, err := d.events.ReadEvents(ctx, from, workerLookRead, 0)
		if err != nil {
			d.cfg.Logger.Error("dashboard: store call failed", "what", "reading the queue's events for a job's worker", "queue", job.Queue, "error", err)
			return worker // not remembered: the next view tries again
		}
		for _, ev := range evs {
			if ev.ID == job.ID && ev.Type == hopper.EventStarted && ev.Attempt == job.Attempt && ev.Worker != "" {
				worker = ev.Worker
			}
		}
		if len(evs) < workerLookRead {
			break
		}
		from = next
	}
	d.attempts.put(key, worker)
	return worker
}
