package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// badJobCase is an enqueue that must fail as a whole with err.
type badJobCase struct {
	name   string
	mutate func(j *hopper.NewJob)
	err    error
}

func invalidQueueCases() []testCase {
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
		cases = append(cases, badJobCase{b.name, func(j *hopper.NewJob) { j.Queue = b.queue }, hopper.ErrInvalidQueue})
	}
	return badJobCases(cases)
}

func invalidJobCases() []testCase {
	return badJobCases([]badJobCase{
		{"EmptyID", func(j *hopper.NewJob) { j.ID = "" }, hopper.ErrInvalidJob},
		{"IDWithSpace", func(j *hopper.NewJob) { j.ID = "a b" }, hopper.ErrInvalidJob},
		{"IDNotASCII", func(j *hopper.NewJob) { j.ID = "jöb" }, hopper.ErrInvalidJob},
		{"ID129Bytes", func(j *hopper.NewJob) { j.ID = strings.Repeat("i", 129) }, hopper.ErrInvalidJob},
		{"EmptyKind", func(j *hopper.NewJob) { j.Kind = "" }, hopper.ErrInvalidJob},
		{"NegativeMaxRetries", func(j *hopper.NewJob) { j.MaxRetries = -1 }, hopper.ErrInvalidJob},
		{"TooManyRetries", func(j *hopper.NewJob) { j.MaxRetries = hopper.MaxRetriesLimit + 1 }, hopper.ErrInvalidJob},
		{"NegativeTimeout", func(j *hopper.NewJob) { j.Timeout = -time.Second }, hopper.ErrInvalidJob},
		{"NegativeRetention", func(j *hopper.NewJob) { j.Retention = -time.Second }, hopper.ErrInvalidJob},
		{"UniqueForWithoutKey", func(j *hopper.NewJob) { j.UniqueFor = time.Minute }, hopper.ErrInvalidJob},
		{"TickWithoutSchedule", func(j *hopper.NewJob) { j.Tick = time.Now() }, hopper.ErrInvalidJob},
		{"ScheduleWithoutTick", func(j *hopper.NewJob) { j.Schedule = "every-minute" }, hopper.ErrInvalidJob},
	})
}

// badJobCases turns each case into a subtest that enqueues a valid job and
// the bad one in one batch and expects the whole batch to fail.
func badJobCases(bad []badJobCase) []testCase {
	var cases []testCase
	for _, b := range bad {
		cases = append(cases, testCase{name: b.name, fn: func(t *testing.T, s hopper.Store) {
			q := newQueue(t)
			badJob := job(q, "bad")
			b.mutate(badJob)
			res, err := s.Enqueue(t.Context(), []*hopper.NewJob{job(q, "good"), badJob})
			if !errors.Is(err, b.err) {
				t.Fatalf("Enqueue of a valid job and one with %s: got results %+v, error %v; want error %v", b.name, res, err, b.err)
			}
			requireGone(t, s, q, "good", "a batch that failed validation")
			requireCounts(t, s, q, hopper.StateCounts{})
			queues, err := s.Queues(t.Context())
			if err != nil {
				t.Fatalf("Queues: unexpected error: %v", err)
			}
			if slices.Contains(queues, badJob.Queue) || slices.Contains(queues, q) {
				t.Fatalf("Queues = %q after a batch that failed validation, want neither %q nor %q listed", queues, q, badJob.Queue)
			}
		}})
	}
	return cases
}
