package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// storedFunc is a StoredSchedules case: the store and its
// store.ScheduleStore.
type storedFunc = func(t *testing.T, s store.Store, ss store.ScheduleStore)

func storedCases() []testCase[storedFunc] {
	return []testCase[storedFunc]{
		{name: "PutReplaceList", fn: testStoredPut},
		{name: "Delete", fn: testStoredDelete},
		{name: "RegisterOnlyWhileStored", fn: testStoredRegister},
		{name: "Invalid", fn: testStoredInvalid},
	}
}

// storedIn returns the stored schedules of queue q, and the version.
func storedIn(t *testing.T, ss store.ScheduleStore, q string) ([]store.StoredSchedule, int64) {
	t.Helper()
	all, ver, err := ss.ListStoredSchedules(t.Context())
	if err != nil {
		t.Fatalf("ListStoredSchedules: %v", err)
	}
	var out []store.StoredSchedule
	for _, sc := range all {
		if sc.Queue == q {
			out = append(out, sc)
		}
	}
	return out, ver
}

// stored returns schedule name of queue q ticking every minute.
func stored(q, name string) store.StoredSchedule {
	return store.StoredSchedule{Name: name, Queue: q, Spec: "@every 1m", Job: store.NewJob{
		Kind: kind, Args: []byte("args of " + name), JobSpec: store.JobSpec{Meta: map[string]string{"m": "1"}, MaxRetries: 3, Timeout: time.Minute, Retention: time.Hour, Priority: 2},
	}}
}

func testStoredPut(t *testing.T, s store.Store, ss store.ScheduleStore) {
	q := newQueue(t)
	_, v0 := storedIn(t, ss, q)
	before := time.Now()
	b, a := stored(q, "b"), stored(q, "a")
	a.CatchUp = true
	for _, sc := range []store.StoredSchedule{b, a} {
		if err := ss.PutSchedule(t.Context(), sc); err != nil {
			t.Fatalf("PutSchedule(%q): %v", sc.Name, err)
		}
	}
	got, v1 := storedIn(t, ss, q)
	if v1 == v0 {
		t.Fatalf("version %d unchanged after two PutSchedule calls", v1)
	}
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" {
		t.Fatalf("ListStoredSchedules of the queue: %+v, want a then b", got)
	}
	g := got[0]
	if g.Spec != "@every 1m" || !g.CatchUp || g.Paused || g.Job.Kind != kind || string(g.Job.Args) != "args of a" ||
		!reflect.DeepEqual(g.Job.JobSpec, a.Job.JobSpec) {
		t.Fatalf("stored schedule a: %+v, want what was put", g)
	}
	if g.UpdatedAt.Before(before.Add(-time.Second)) || g.UpdatedAt.After(time.Now().Add(time.Second)) {
		t.Fatalf("UpdatedAt %v, want about now", g.UpdatedAt)
	}
	a.Paused, a.Spec = true, "@every 2m"
	if err := ss.PutSchedule(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	got, v2 := storedIn(t, ss, q)
	if v2 == v1 || len(got) != 2 || !got[0].Paused || got[0].Spec != "@every 2m" {
		t.Fatalf("after replacing a (paused, every 2m): version %d (was %d), %+v", v2, v1, got)
	}
	if v, err := ss.SchedulesVersion(t.Context()); err != nil || v < v2 {
		t.Fatalf("SchedulesVersion = %d, %v; want at least %d", v, err, v2)
	}
}

func testStoredDelete(t *testing.T, s store.Store, ss store.ScheduleStore) {
	q := newQueue(t)
	if err := ss.PutSchedule(t.Context(), stored(q, "a")); err != nil {
		t.Fatal(err)
	}
	_, v1 := storedIn(t, ss, q)
	if ok, err := ss.DeleteSchedule(t.Context(), q, "a"); err != nil || !ok {
		t.Fatalf("DeleteSchedule(a): %v, %v; want true, nil", ok, err)
	}
	got, v2 := storedIn(t, ss, q)
	if len(got) != 0 || v2 == v1 {
		t.Fatalf("after DeleteSchedule: %+v at version %d (was %d), want none and a new version", got, v2, v1)
	}
	if ok, err := ss.DeleteSchedule(t.Context(), q, "a"); err != nil || ok {
		t.Fatalf("DeleteSchedule of a schedule gone: %v, %v; want false, nil", ok, err)
	}
}

// testStoredRegister: a stored schedule's registration (ScheduleInfo.Stored)
// is recorded while the schedule is stored and refused once it was
// deleted, with the others of the same call recorded: a scheduler that
// registers a schedule it has not seen deleted yet leaves no ghost. A
// schedule declared in code of the same name is recorded all the same.
func testStoredRegister(t *testing.T, s store.Store, ss store.ScheduleStore) {
	q := newQueue(t)
	for _, name := range []string{"kept", "gone"} {
		if err := ss.PutSchedule(t.Context(), stored(q, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ss.DeleteSchedule(t.Context(), q, "gone"); err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	info := func(name string, st bool) store.ScheduleInfo {
		return store.ScheduleInfo{Name: name, Queue: q, Spec: "@every 1m", Kind: kind, Next: next, SeenAt: time.Now(), Stored: st}
	}
	if err := s.RegisterSchedules(t.Context(), []store.ScheduleInfo{info("kept", true), info("gone", true), info("code", false)}); err != nil {
		t.Fatalf("RegisterSchedules: %v", err)
	}
	registered := func() map[string]store.ScheduleInfo {
		t.Helper()
		all, err := s.ListSchedules(t.Context())
		if err != nil {
			t.Fatalf("ListSchedules: %v", err)
		}
		out := map[string]store.ScheduleInfo{}
		for _, si := range all {
			if si.Queue == q {
				out[si.Name] = si
			}
		}
		return out
	}
	got := registered()
	if _, ok := got["gone"]; ok || len(got) != 2 || got["kept"].Name == "" || got["code"].Name == "" {
		t.Fatalf("registered after one call with kept, gone (deleted) and code: %v; want kept and code", got)
	}
	if got["kept"].Stored {
		t.Fatalf("ListSchedules returned Stored true: %+v", got["kept"])
	}
	// Declared in code under the deleted one's name: recorded.
	if err := s.RegisterSchedules(t.Context(), []store.ScheduleInfo{info("gone", false)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := registered()["gone"]; !ok {
		t.Fatalf("a schedule declared in code named as a deleted stored one was not registered")
	}
}

func testStoredInvalid(t *testing.T, s store.Store, ss store.ScheduleStore) {
	q := newQueue(t)
	noName, badQueue, noSpec, withID, badJob := stored(q, ""), stored("bad queue", "a"), stored(q, "a"), stored(q, "a"), stored(q, "a")
	noSpec.Spec = ""
	withID.Job.ID = "fixed"
	badJob.Job.Priority = 9
	for _, sc := range []store.StoredSchedule{noName, badQueue, noSpec, withID, badJob} {
		err := ss.PutSchedule(t.Context(), sc)
		if !errors.Is(err, store.ErrInvalidConfig) && !errors.Is(err, store.ErrInvalidJob) && !errors.Is(err, store.ErrInvalidQueue) {
			t.Fatalf("PutSchedule(%+v): %v, want an invalid config, job or queue error", sc, err)
		}
	}
	if got, _ := storedIn(t, ss, q); len(got) != 0 {
		t.Fatalf("after refused puts: %+v, want none stored", got)
	}
}
