package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// badJobCase is an enqueue that must fail as a whole with err.
type badJobCase struct {
	name   string
	mutate func(j *store.NewJob)
	err    error
}

func invalidQueueCases() []engineCase {
	bad := []struct{ name, queue string }{
		{"Empty", ""},
		{"65Bytes", strings.Repeat("q", 65)},
		{"Braces", "a{b}c"},
		{"Colon", "a:b"},
		{"Space", "a b"},
		{"ControlChar", "a\nb"},
		{"Unicode", "café"},
		{"Slash", "a/b"},
	}
	var cases []badJobCase
	for _, b := range bad {
		cases = append(cases, badJobCase{b.name, func(j *store.NewJob) { j.Queue = b.queue }, store.ErrInvalidQueue})
	}
	return badJobCases(cases)
}

func invalidJobCases() []engineCase {
	return badJobCases([]badJobCase{
		{"EmptyID", func(j *store.NewJob) { j.ID = "" }, store.ErrInvalidJob},
		{"IDWithSpace", func(j *store.NewJob) { j.ID = "a b" }, store.ErrInvalidJob},
		{"IDNotASCII", func(j *store.NewJob) { j.ID = "jöb" }, store.ErrInvalidJob},
		{"ID129Bytes", func(j *store.NewJob) { j.ID = strings.Repeat("i", 129) }, store.ErrInvalidJob},
		{"EmptyKind", func(j *store.NewJob) { j.Kind = "" }, store.ErrInvalidJob},
		{"NegativeMaxRetries", func(j *store.NewJob) { j.MaxRetries = -1 }, store.ErrInvalidJob},
		{"TooManyRetries", func(j *store.NewJob) { j.MaxRetries = store.MaxRetriesLimit + 1 }, store.ErrInvalidJob},
		{"NegativeTimeout", func(j *store.NewJob) { j.Timeout = -time.Second }, store.ErrInvalidJob},
		{"NegativeRetention", func(j *store.NewJob) { j.Retention = -time.Second }, store.ErrInvalidJob},
		{"UniqueForWithoutKey", func(j *store.NewJob) { j.UniqueFor = time.Minute }, store.ErrInvalidJob},
		{"TickWithoutSchedule", func(j *store.NewJob) { j.Tick = time.Now() }, store.ErrInvalidJob},
		{"ScheduleWithoutTick", func(j *store.NewJob) { j.Schedule = "every-minute" }, store.ErrInvalidJob},
	})
}

// badJobCases turns each case into a subtest that enqueues a valid job and
// the bad one in one batch and expects the whole batch to fail.
func badJobCases(bad []badJobCase) []engineCase {
	var cases []engineCase
	for _, b := range bad {
		cases = append(cases, engineCase{name: b.name, fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			badJob := job(q, "bad")
			b.mutate(badJob)
			res, err := s.Enqueue(t.Context(), []*store.NewJob{job(q, "good"), badJob})
			if !errors.Is(err, b.err) {
				t.Fatalf("Enqueue of a valid job and one with %s: got results %+v, error %v; want error %v", b.name, res, err, b.err)
			}
			queues, err := s.ListQueues(t.Context())
			if err != nil {
				t.Fatalf("Queues: unexpected error: %v", err)
			}
			if slices.Contains(queues, badJob.Queue) || slices.Contains(queues, q) {
				t.Fatalf("Queues = %q after a batch that failed validation, want neither %q nor %q listed", queues, q, badJob.Queue)
			}
			claimNone(t, s, q, "a batch that failed validation added nothing")
			requireIdle(t, s, q, "a batch that failed validation added nothing")
			requireFree(t, s, q, "good", "a batch that failed validation")
		}})
	}
	return cases
}
