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
		j.rec.Meta = cloneMeta(nj.Meta)
		j.rec.MaxRetries = nj.MaxRetries
		j.rec.Timeout = nj.Timeout
		j.rec.Retention = nj.Retention
		if p, g := nj.Priority, nj.Group; p != j.rec.Priority || g != j.rec.Group {
			// A ready job goes to the back of its new level or group.
			if j.rec.State == store.StateReady {
				q.detach(j)
				j.rec.Priority, j.rec.Group = p, g
				q.attach(j, store.StateReady, 0)
			} else {
				j.rec.Priority, j.rec.Group = p, g
			}
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
