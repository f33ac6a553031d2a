package memstore

import (
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// replace is the result of enqueueing nj when the job id holds its ID or
// unique key: a plain duplicate, or, when nj asks for it and the holder is
// waiting, the holder changed as store.Replace says. A workflow task's job
// is never changed: its workflow owns it. running reports that nj asks for
// a change and the holder is running: the caller adds nj instead when the
// holder holds only its unique key. q.mu must be held.
func (q *queue) replace(id string, nj *store.NewJob, now time.Time, nowMs int64) (res store.EnqueueResult, running bool) {
	dup := store.EnqueueResult{ID: id, Duplicate: true}
	j := q.jobs[id]
	if nj.Replace == 0 || j == nil || strings.IndexByte(id, '~') >= 0 {
		return dup, false
	}
	if !j.rec.State.Replaceable() {
		return dup, j.rec.State == store.StateUnack && nj.Replace&store.ReplaceOnly == 0
	}
	if nj.Replace&store.ReplaceArgs != 0 {
		old := j.rec.Kind
		j.rec.Kind = nj.Kind
		if q.kinds != nil && old != nj.Kind {
			q.unindexKind(old)
			q.indexKind(j)
		}
		j.rec.Args = cloneBytes(nj.Args)
		spec := nj.JobSpec.Clone()
		// The job keeps its own unique key and hold (store.Replace).
		spec.UniqueKey, spec.UniqueFor = j.rec.UniqueKey, j.rec.UniqueFor
		// A ready job whose level or group changes goes to the back of
		// its new one.
		move := j.rec.State == store.StateReady && (spec.Priority != j.rec.Priority || spec.Group != j.rec.Group)
		if move {
			q.detach(j)
		}
		j.rec.JobSpec = spec
		if move {
			q.attach(j, store.StateReady, 0)
		}
	}
	if nj.Replace&store.ReplaceRunAt != 0 {
		dueMs := nowMs + mstime.Ceil(nj.Delay)
		if !nj.RunAt.IsZero() {
			dueMs = mstime.CeilUnix(nj.RunAt)
		}
		if dueMs > nowMs {
			st := store.StatePending // a retry waits in retry
			if j.rec.State == store.StateRetry {
				st = store.StateRetry
			}
			q.detach(j)
			q.attach(j, st, dueMs)
			j.rec.RunAt = atMs(now, nowMs, dueMs)
		} else if j.rec.State != store.StateReady {
			q.detach(j)
			q.attach(j, store.StateReady, 0)
			j.rec.RunAt = now
		}
	}
	dup.Replaced, dup.State = true, j.rec.State
	return dup, false
}
