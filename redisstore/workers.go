package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/msgpackguard"
	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"

	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"
)

// workerRecord is WorkerInfo as stored (msgpack, short names); the
// heartbeat time is the server's and is kept outside it.
type workerRecord struct {
	ID          string         `msgpack:"i"`
	Host        string         `msgpack:"h"`
	PID         int            `msgpack:"p"`
	Queues      map[string]int `msgpack:"q"`
	Concurrency int            `msgpack:"c"`
	StartedAt   time.Time      `msgpack:"s"`
	Running     []runningJob   `msgpack:"r"`
	Processed   int64          `msgpack:"n,omitempty"`
	Failed      int64          `msgpack:"f,omitempty"`
	State       string         `msgpack:"st,omitempty"`
	// Layout is the layout version the writing release writes
	// (LayoutVersion); absent (0) in the records of releases before
	// v0.1.0, which Migrate reports as old workers.
	Layout int `msgpack:"lv,omitempty"`
}

type runningJob struct {
	Queue     string    `msgpack:"q"`
	ID        string    `msgpack:"i"`
	Kind      string    `msgpack:"k"`
	StartedAt time.Time `msgpack:"s"`
}

// Heartbeat records a live worker process (see store.Store): its record
// expires after ttl on the server's clock unless renewed.
func (s *Store) Heartbeat(ctx context.Context, w store.WorkerInfo, ttl time.Duration) error {
	if err := s.begin(ctx); err != nil {
		return s.closedCheck(ctx, err)
	}
	if err := store.ValidateHeartbeat(w, ttl); err != nil {
		return err
	}
	ms := mstime.Ceil(ttl)
	rec := workerRecord{ID: w.ID, Host: w.Host, PID: w.PID, Queues: w.Queues, Concurrency: w.Concurrency, StartedAt: w.StartedAt,
		Processed: w.Processed, Failed: w.Failed, State: string(w.State), Layout: LayoutVersion}
	for _, r := range w.Running {
		rec.Running = append(rec.Running, runningJob(r))
	}
	b, err := msgpack.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("redisstore: encode worker %q: %w", w.ID, err)
	}
	err = s.run(ctx, fullScript("heartbeat"), []string{s.g.workers, s.g.worker(w.ID)}, w.ID, b, ms).Err()
	return s.closedCheck(ctx, wrap("heartbeat of worker "+strconv.Quote(w.ID), err))
}

// ListWorkers lists the live worker processes, sorted by ID.
func (s *Store) ListWorkers(ctx context.Context) ([]store.WorkerInfo, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	recs, unreadable, err := s.liveWorkerRecords(ctx)
	if err != nil {
		return nil, err
	}
	if len(unreadable) > 0 {
		return nil, unreadable[0].error()
	}
	out := make([]store.WorkerInfo, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.info())
	}
	slices.SortFunc(out, func(a, b store.WorkerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// unmarshalRecord decodes a record written with msgpack.Marshal after
// msgpackguard has checked it: msgpack v5 allocates what a header claims
// for slices and maps (workerRecord.Running, Queues), so a corrupt or
// hostile value in Redis could otherwise ask for gigabytes. A panic in
// msgpack v5 (it has some on malformed input) becomes an error.
func unmarshalRecord(v string, rec any) (err error) {
	b := []byte(v)
	if err := msgpackguard.Check(b); err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("msgpack panicked: %v", p)
		}
	}()
	return msgpack.Unmarshal(b, rec)
}

// liveWorker is a live worker's record and its last heartbeat (ms, the
// server's clock).
type liveWorker struct {
	workerRecord
	heartbeatMs int64
}

// info returns the record as a store.WorkerInfo.
func (r liveWorker) info() store.WorkerInfo {
	w := store.WorkerInfo{
		ID: r.ID, Host: r.Host, PID: r.PID, Queues: r.Queues, Concurrency: r.Concurrency,
		StartedAt: r.StartedAt, HeartbeatAt: time.UnixMilli(r.heartbeatMs), Processed: r.Processed, Failed: r.Failed,
		State: store.WorkerState(r.State),
	}
	for _, j := range r.Running {
		w.Running = append(w.Running, store.RunningJob(j))
	}
	return w
}

// liveWorkerRecords reads the records of the live workers, in the order
// of the registry.
func (s *Store) liveWorkerRecords(ctx context.Context) ([]liveWorker, []unreadableWorker, error) {
	var timeCmd *redis.TimeCmd
	var rangeCmd *redis.ZSliceCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		timeCmd = p.Time(ctx)
		rangeCmd = p.ZRangeWithScores(ctx, s.g.workers, 0, -1)
		return nil
	})
	if err != nil {
		return nil, nil, wrap("workers", err)
	}
	now := timeCmd.Val().UnixMilli()
	var keys, ids []string
	for _, z := range rangeCmd.Val() {
		if int64(z.Score) > now {
			id := z.Member.(string)
			ids, keys = append(ids, id), append(keys, s.g.worker(id))
		}
	}
	if len(keys) == 0 {
		return nil, nil, nil
	}
	vals, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, nil, wrap("workers", err)
	}
	var out []liveWorker
	var bad []unreadableWorker
	for i, v := range vals {
		str, ok := v.(string)
		if !ok {
			continue // expired since the range
		}
		w, err := decodeWorkerRecord(str)
		if err != nil {
			bad = append(bad, unreadableWorker{id: ids[i], key: keys[i], err: err})
			continue
		}
		out = append(out, w)
	}
	return out, bad, nil
}

// unreadableWorker is a live worker whose record does not decode: err
// says why.
type unreadableWorker struct {
	id, key string
	err     error
}

// error returns err naming the worker and its key.
func (u unreadableWorker) error() error {
	return fmt.Errorf("%w (worker %q, key %s)", u.err, u.id, u.key)
}

// decodeWorker decodes a worker's stored value, "<heartbeatMs>," + msgpack
// workerRecord. Any malformed value gives an error wrapping errCorrupt.
func decodeWorker(v string) (store.WorkerInfo, error) {
	w, err := decodeWorkerRecord(v)
	if err != nil {
		return store.WorkerInfo{}, err
	}
	return w.info(), nil
}

// decodeWorkerRecord decodes a worker's stored value as decodeWorker
// does, keeping the record.
func decodeWorkerRecord(v string) (liveWorker, error) {
	at, body, ok := strings.Cut(v, ",")
	ms, err := strconv.ParseInt(at, 10, 64)
	var rec workerRecord
	if ok && err == nil {
		err = unmarshalRecord(body, &rec)
	}
	if !ok || err != nil {
		return liveWorker{}, fmt.Errorf("redisstore: decode worker record: %w", errCorrupt)
	}
	return liveWorker{workerRecord: rec, heartbeatMs: ms}, nil
}

// RemoveWorker deletes a worker's record (see store.Store). Removing an
// unknown worker is not an error.
//
// Its ZREM and DEL go in one pipeline, not a transaction: Redis at
// maxmemory refuses every command queued in a MULTI, while these two,
// which free memory, run at maxmemory, and a worker that stops while
// Redis is full must still say so. Half done (one of them failed) is what
// readers already see of a worker whose record expired: an entry of the
// registry without its record, or a record without its entry, neither
// listed (liveWorkerRecords), and each gone at its expiry.
func (s *Store) RemoveWorker(ctx context.Context, id string) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, s.g.workers, id)
		p.Del(ctx, s.g.worker(id))
		return nil
	})
	return wrap("remove worker "+strconv.Quote(id), err)
}
