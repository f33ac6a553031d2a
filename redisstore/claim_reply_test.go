package redisstore

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/store"
)

// jobOfKind is a job of kind as Enqueue stores it.
func jobOfKind(kind string) *store.NewJob {
	j := &store.NewJob{Kind: kind, Args: []byte{0x80}}
	j.ID, j.Queue, j.MaxRetries = "x", "q", 3
	return j
}

// historyOf is an error history of one record, as append_error writes it.
func historyOf(atMs int64, e *store.AttemptError) string {
	body := append([]byte{0x94}, mpack.AppendInt(nil, atMs)...)
	body = append(body, encodeErrorRest(e)...)
	frame := []byte{0xc6, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(frame[1:], uint32(len(body)))
	return string(append(frame, body...))
}

// TestDecodeClaim reads the claim script's replies: the jobs, those
// attempted before (their attempt, history and due time), an ID without
// a job, and the waits of a paced queue, each where the script puts it.
func TestDecodeClaim(t *testing.T) {
	const now, deadline, token = int64(1_700_000_000_000), int64(1_700_000_030_000), int64(42)
	fresh := storedValue(now-5, jobOfKind("fresh"))
	retried := storedValue(now-900, jobOfKind("retried"))
	promoted := storedValue(now-2000, jobOfKind("promoted"))
	hist := historyOf(now-100, &store.AttemptError{Attempt: 1, Error: "boom"})
	headOf := func(n int64) []any { return []any{now, deadline, int64(0), token, int64(250), n} }

	t.Run("plain", func(t *testing.T) {
		vals := append(headOf(2), "a", fresh, "b", fresh, int64(0))
		res, bad, err := decodeClaim("q", vals)
		if err != nil || len(bad) != 0 {
			t.Fatalf("decodeClaim: %v, bad %v", err, bad)
		}
		if len(res.Jobs) != 2 || res.StartAfter != nil || res.StartWithin != 250*time.Microsecond {
			t.Fatalf("got %d jobs, StartAfter %v, StartWithin %v; want 2, none, 250µs", len(res.Jobs), res.StartAfter, res.StartWithin)
		}
		for i, want := range []string{"a", "b"} {
			j := res.Jobs[i]
			if j.ID != want || j.Kind != "fresh" || j.Attempt != 1 || j.Errors != nil || j.Token != uint64(token) ||
				!j.RunAt.Equal(j.EnqueuedAt) || !j.AttemptedAt.Equal(time.UnixMilli(now)) || !j.Deadline.Equal(time.UnixMilli(deadline)) {
				t.Errorf("job %d: %+v", i, j)
			}
		}
	})

	t.Run("attempted before, missing and paced", func(t *testing.T) {
		vals := append(headOf(4), "a", fresh, "gone", "", "r", retried, "p", promoted,
			int64(2),
			int64(3), int64(2), hist, "",
			int64(4), int64(1), "", "1699999999000",
			int64(0), int64(0), int64(700), int64(1500))
		res, bad, err := decodeClaim("q", vals)
		if err != nil || len(bad) != 0 {
			t.Fatalf("decodeClaim: %v, bad %v", err, bad)
		}
		if len(res.Jobs) != 3 {
			t.Fatalf("got %d jobs, want 3 (the ID without a job left out)", len(res.Jobs))
		}
		a, r, p := res.Jobs[0], res.Jobs[1], res.Jobs[2]
		if a.ID != "a" || a.Attempt != 1 || a.Errors != nil {
			t.Errorf("fresh job: %+v", a)
		}
		if r.ID != "r" || r.Kind != "retried" || r.Attempt != 2 || len(r.Errors) != 1 || r.Errors[0].Error != "boom" || !r.RunAt.Equal(r.EnqueuedAt) {
			t.Errorf("retried job: ID %q kind %q attempt %d errors %+v RunAt %v", r.ID, r.Kind, r.Attempt, r.Errors, r.RunAt)
		}
		if p.ID != "p" || p.Attempt != 1 || p.Errors != nil || !p.RunAt.Equal(time.UnixMilli(1699999999000)) {
			t.Errorf("promoted job: ID %q attempt %d errors %v RunAt %v", p.ID, p.Attempt, p.Errors, p.RunAt)
		}
		want := []time.Duration{0, 700 * time.Microsecond, 1500 * time.Microsecond}
		if len(res.StartAfter) != 3 || res.StartAfter[0] != want[0] || res.StartAfter[1] != want[1] || res.StartAfter[2] != want[2] {
			t.Errorf("StartAfter %v; want %v (the missing job's wait dropped with it)", res.StartAfter, want)
		}
	})

	t.Run("nothing claimed", func(t *testing.T) {
		res, bad, err := decodeClaim("q", []any{now, int64(0), int64(80), int64(0), int64(0)})
		if err != nil || len(bad) != 0 || len(res.Jobs) != 0 || res.RetryIn != 80*time.Millisecond {
			t.Fatalf("got %+v, bad %v, err %v; want no job and RetryIn 80ms", res, bad, err)
		}
	})

	t.Run("undecodable value", func(t *testing.T) {
		res, bad, err := decodeClaim("q", append(headOf(2), "a", fresh, "b", "garbage", int64(0)))
		if err != nil || len(res.Jobs) != 1 || len(bad) != 1 || bad[0].id != "b" || bad[0].token != uint64(token) {
			t.Fatalf("got %d jobs, bad %+v, err %v; want job a and b undecodable", len(res.Jobs), bad, err)
		}
	})

	for name, vals := range map[string][]any{
		"short head":            {now, deadline, int64(0)},
		"jobs cut short":        append(headOf(2), "a", fresh, "b"),
		"no count of attempted": append(headOf(1), "a", fresh),
		"attempted cut short":   append(headOf(1), "a", fresh, int64(1), int64(1), int64(2)),
		"waits of other jobs":   append(headOf(2), "a", fresh, "b", fresh, int64(0), int64(5)),
		"negative count":        append(headOf(-1), int64(0)),
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := decodeClaim("q", vals); err == nil || !strings.Contains(err.Error(), "unexpected reply") {
				t.Fatalf("decodeClaim accepted a malformed reply (err %v)", err)
			}
		})
	}
}
