package storetest

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func replaceCases() []adminCase {
	return []adminCase{
		{name: "ArgsOfPending", fn: testReplaceArgsOfPending},
		{name: "RunAtOfPending", fn: testReplaceRunAtOfPending},
		{name: "ReadyBackToPending", fn: testReplaceReadyBackToPending},
		{name: "Retry", fn: testReplaceRetry},
		{name: "ByID", fn: testReplaceByID},
		{name: "KeepsTheHoldersKey", fn: testReplaceKeepsTheHoldersKey},
		{name: "RunningPassesTheKey", fn: testReplaceRunningPassesTheKey},
		{name: "EndedIsADuplicate", fn: testReplaceEndedIsADuplicate},
		{name: "OnlyNeverAdds", fn: testReplaceOnlyNeverAdds},
		{name: "BadFlags", fn: testReplaceBadFlags},
	}
}

// keyed returns job(q, id) with unique key k, the Replace flags r and args.
func keyed(q, id, k string, r store.Replace, args string) *store.NewJob {
	j := job(q, id)
	j.UniqueKey, j.Replace, j.Args = k, r, []byte(args)
	return j
}

// requireReplaced fails unless res reports holder replaced and now in st.
func requireReplaced(t *testing.T, res store.EnqueueResult, holder string, st store.JobState) {
	t.Helper()
	if !res.Duplicate || !res.Replaced || res.ID != holder || res.State != st {
		t.Fatalf("Enqueue with Replace: got %+v, want a duplicate that replaced %q, now %s", res, holder, st)
	}
}

func testReplaceArgsOfPending(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	first := keyed(q, "a", "k", 0, "v1")
	first.Delay = time.Hour
	add(t, s, first)
	before := getJob(t, a, q, "a")
	second := keyed(q, "b", "k", store.ReplaceArgs, "v2")
	second.Kind, second.MaxRetries, second.Meta = "other_kind", 7, map[string]string{"m": "2"}
	second.Delay = time.Minute // not asked for: the due time stays
	requireReplaced(t, enqueue(t, s, second)[0], "a", store.StatePending)
	got := requireState(t, a, q, "a", store.StatePending)
	if string(got.Args) != "v2" || got.Kind != "other_kind" || got.MaxRetries != 7 || got.Meta["m"] != "2" {
		t.Fatalf("after ReplaceArgs: args %q kind %q retries %d meta %v, want the second job's v2, other_kind, 7, m=2", got.Args, got.Kind, got.MaxRetries, got.Meta)
	}
	if !got.RunAt.Equal(before.RunAt) || !got.EnqueuedAt.Equal(before.EnqueuedAt) || got.UniqueKey != "k" {
		t.Fatalf("after ReplaceArgs: RunAt %v EnqueuedAt %v key %q, want the first job's %v, %v and k", got.RunAt, got.EnqueuedAt, got.UniqueKey, before.RunAt, before.EnqueuedAt)
	}
	if _, err := a.GetJob(t.Context(), q, "b"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("GetJob of the replacing job: %v, want ErrJobNotFound (nothing added)", err)
	}
}

// testReplaceKeepsTheHoldersKey: a replaced job keeps its own unique key
// and hold (UniqueFor), whatever the replacing job's, and still holds the
// key.
func testReplaceKeepsTheHoldersKey(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	first := keyed(q, "a", "k", 0, "v1")
	first.UniqueFor, first.Delay = time.Hour, time.Hour
	add(t, s, first)
	byKey := keyed(q, "b", "k", store.ReplaceArgs, "v2")
	byKey.UniqueFor = time.Minute
	byID := keyed(q, "a", "k2", store.ReplaceArgs, "v3")
	byID.UniqueFor, byID.Meta = 2*time.Minute, map[string]string{"m": "3"}
	for _, j := range []*store.NewJob{byKey, byID} {
		requireReplaced(t, enqueue(t, s, j)[0], "a", store.StatePending)
		got := getJob(t, a, q, "a")
		if string(got.Args) != string(j.Args) || got.UniqueKey != "k" || got.UniqueFor != time.Hour {
			t.Fatalf("after ReplaceArgs by %s: args %q, UniqueKey %q, UniqueFor %v; want %q with the holder's k and 1h", j.ID, got.Args, got.UniqueKey, got.UniqueFor, j.Args)
		}
	}
	if r := enqueue(t, s, keyed(q, "c", "k", 0, "v4"))[0]; !r.Duplicate || r.ID != "a" {
		t.Fatalf("Enqueue with the key after the replacements: got %+v, want a duplicate of a", r)
	}
}

func testReplaceRunAtOfPending(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	first := keyed(q, "a", "k", 0, "v1")
	first.Delay = time.Hour
	add(t, s, first)
	later := keyed(q, "b", "k", store.ReplaceRunAt, "v2")
	later.Delay = 2 * time.Hour
	requireReplaced(t, enqueue(t, s, later)[0], "a", store.StatePending)
	got := getJob(t, a, q, "a")
	if d := time.Until(got.RunAt); d < 2*time.Hour-time.Minute || d > 2*time.Hour+time.Minute {
		t.Fatalf("after ReplaceRunAt with Delay 2h: due in %v, want about 2h", d)
	}
	if string(got.Args) != "v1" {
		t.Fatalf("after ReplaceRunAt alone: args %q, want v1 kept", got.Args)
	}
	now := keyed(q, "c", "k", store.ReplaceRunAt|store.ReplaceArgs, "v3")
	requireReplaced(t, enqueue(t, s, now)[0], "a", store.StateReady)
	if j := claimOne(t, s, q, "a", long); string(j.Args) != "v3" || j.Attempt != 1 {
		t.Fatalf("claimed %q attempt %d, want v3 attempt 1", j.Args, j.Attempt)
	}
}

func testReplaceReadyBackToPending(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, keyed(q, "a", "k", 0, "v1"), job(q, "other"))
	push := keyed(q, "b", "k", store.ReplaceRunAt, "v2")
	push.Delay = time.Hour
	requireReplaced(t, enqueue(t, s, push)[0], "a", store.StatePending)
	requireCounts(t, a, q, store.StateCounts{Ready: 1, Pending: 1})
	claimOne(t, s, q, "other", long)
	claimNone(t, s, q, "the replaced job waits an hour")
	// A due time of now leaves a ready job where it is.
	add(t, s, keyed(q, "c", "k2", 0, "v1"))
	requireReplaced(t, enqueue(t, s, keyed(q, "d", "k2", store.ReplaceRunAt, "v2"))[0], "c", store.StateReady)
	claimOne(t, s, q, "c", long)
}

func testReplaceRetry(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	first := keyed(q, "a", "k", 0, "v1")
	first.MaxRetries = 3
	add(t, s, first)
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, failed(j, store.OutcomeRetry, "boom", time.Hour))
	requireReplaced(t, enqueue(t, s, keyed(q, "b", "k", store.ReplaceArgs|store.ReplaceRunAt, "v2"))[0], "a", store.StateReady)
	got := claimOne(t, s, q, "a", long)
	if string(got.Args) != "v2" || got.Attempt != 2 || len(got.Errors) != 1 || got.Errors[0].Error != "boom" {
		t.Fatalf("claimed %q attempt %d errors %v, want v2, attempt 2 and the first attempt's error kept", got.Args, got.Attempt, got.Errors)
	}
}

func testReplaceByID(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	first := job(q, "a")
	first.Delay = time.Hour
	add(t, s, first)
	again := job(q, "a")
	again.Args, again.Replace = []byte("new"), store.ReplaceArgs|store.ReplaceRunAt
	requireReplaced(t, enqueue(t, s, again)[0], "a", store.StateReady)
	if got := claimOne(t, s, q, "a", long); !bytes.Equal(got.Args, []byte("new")) {
		t.Fatalf("claimed args %q, want new", got.Args)
	}
}

func testReplaceRunningPassesTheKey(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, keyed(q, "a", "k", 0, "v1"))
	running := claimOne(t, s, q, "a", long)
	res := enqueue(t, s, keyed(q, "b", "k", store.ReplaceArgs|store.ReplaceRunAt, "v2"))[0]
	if res.Duplicate || res.ID != "b" || res.State != store.StateReady {
		t.Fatalf("Enqueue with Replace while the key's holder runs: got %+v, want b added (ready)", res)
	}
	if got := getJob(t, a, q, "a"); string(got.Args) != "v1" || got.State != store.StateUnack {
		t.Fatalf("the running job: args %q state %s, want v1 and unack, unchanged", got.Args, got.State)
	}
	finishOK(t, s, outcome(running, store.OutcomeAck))
	// b holds the key now: the end of a did not free it.
	if r := enqueue(t, s, keyed(q, "c", "k", 0, "v3"))[0]; !r.Duplicate || r.ID != "b" {
		t.Fatalf("Enqueue with the key after the running job ended: got %+v, want a duplicate of b", r)
	}
	// An ID held by a running job cannot pass: a plain duplicate.
	j := claimOne(t, s, q, "b", long)
	again := keyed(q, "b", "", store.ReplaceArgs, "v4")
	if r := enqueue(t, s, again)[0]; !r.Duplicate || r.Replaced || r.ID != "b" {
		t.Fatalf("Enqueue with Replace of a running job's ID: got %+v, want a plain duplicate", r)
	}
	finishOK(t, s, outcome(j, store.OutcomeAck))
}

func testReplaceEndedIsADuplicate(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	ack := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	ack.Retention = time.Hour
	finishOK(t, s, ack)
	again := job(q, "a")
	again.Args, again.Replace = []byte("new"), store.ReplaceArgs|store.ReplaceRunAt
	if r := enqueue(t, s, again)[0]; !r.Duplicate || r.Replaced {
		t.Fatalf("Enqueue with Replace of a done job's ID: got %+v, want a plain duplicate", r)
	}
	if got := requireState(t, a, q, "a", store.StateDone); string(got.Args) == "new" {
		t.Fatalf("a done job's args were replaced")
	}
}

func testReplaceBadFlags(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	bad := job(q, "a")
	bad.Replace = 8
	if _, err := s.Enqueue(t.Context(), []*store.NewJob{bad}); !errors.Is(err, store.ErrInvalidJob) {
		t.Fatalf("Enqueue with Replace 8: %v, want ErrInvalidJob", err)
	}
	tick := job(q, "b")
	tick.Schedule, tick.Tick, tick.Replace = "every", time.Now(), store.ReplaceArgs
	if _, err := s.Enqueue(t.Context(), []*store.NewJob{tick}); !errors.Is(err, store.ErrInvalidJob) {
		t.Fatalf("Enqueue of a periodic tick with Replace: %v, want ErrInvalidJob", err)
	}
	requireCounts(t, a, q, store.StateCounts{})
}

func testReplaceOnlyNeverAdds(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	gone := job(q, "gone")
	gone.Replace = store.ReplaceOnly | store.ReplaceArgs
	if r := enqueue(t, s, gone)[0]; !r.Duplicate || r.Replaced {
		t.Fatalf("Enqueue with ReplaceOnly of an ID nobody holds: got %+v, want nothing added", r)
	}
	add(t, s, keyed(q, "a", "k", 0, "v1"))
	running := claimOne(t, s, q, "a", long)
	only := keyed(q, "b", "k", store.ReplaceOnly|store.ReplaceArgs, "v2")
	if r := enqueue(t, s, only)[0]; !r.Duplicate || r.Replaced || r.ID != "a" {
		t.Fatalf("Enqueue with ReplaceOnly while the key's holder runs: got %+v, want a plain duplicate of a", r)
	}
	requireCounts(t, a, q, store.StateCounts{Unack: 1})
	finishOK(t, s, outcome(running, store.OutcomeAck))
	add(t, s, keyed(q, "c", "k2", 0, "v1"))
	requireReplaced(t, enqueue(t, s, keyed(q, "d", "k2", store.ReplaceOnly|store.ReplaceArgs, "v2"))[0], "c", store.StateReady)
}
