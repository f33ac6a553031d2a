package storetest

import (
	"bytes"
	"maps"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func argsCases() []testCase {
	all := make([]byte, 0, 512)
	for i := range 512 {
		all = append(all, byte(i))
	}
	large := make([]byte, 1<<20)
	for i := range large {
		large[i] = byte(i*7 + i>>8)
	}
	args := []struct {
		name string
		args []byte
	}{
		{"Empty", []byte{}},
		{"Nil", nil},
		{"Binary", append([]byte{0, 0, 0xff, '{', '}', '"', '\\', 0}, all...)},
		{"ZeroBytes", make([]byte, 64)},
		{"OneMiB", large},
	}
	var cases []testCase
	for _, a := range args {
		cases = append(cases, testCase{name: a.name, fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			j := job(q, "a")
			j.Args = a.args
			add(t, s, j)
			if got := getJob(t, s, q, "a").Args; !bytes.Equal(got, a.args) {
				t.Fatalf("GetJob returned %d bytes of args, want the %d bytes enqueued (first difference at %d)", len(got), len(a.args), firstDiff(got, a.args))
			}
			if got := claimOne(t, s, q, "a", long).Args; !bytes.Equal(got, a.args) {
				t.Fatalf("Claim returned %d bytes of args, want the %d bytes enqueued (first difference at %d)", len(got), len(a.args), firstDiff(got, a.args))
			}
		}})
	}
	return cases
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func testEnqueueMeta(t *testing.T, s store.Store) {
	q := newQueue(t)
	meta := map[string]string{
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"empty":       "",
		"ünïcode":     "välue ✓",
		"with space":  "a=b; c",
	}
	j := job(q, "with-meta")
	j.Meta = maps.Clone(meta)
	add(t, s, j, job(q, "no-meta"))
	if got := getJob(t, s, q, "with-meta").Meta; !maps.Equal(got, meta) {
		t.Fatalf("GetJob Meta = %q, want %q", got, meta)
	}
	if got := claimOne(t, s, q, "with-meta", long).Meta; !maps.Equal(got, meta) {
		t.Fatalf("claimed job's Meta = %q, want %q", got, meta)
	}
	if got := getJob(t, s, q, "no-meta").Meta; len(got) != 0 {
		t.Fatalf("job enqueued with nil Meta has Meta %q, want none", got)
	}
}

func testEnqueueFields(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := job(q, "fields")
	j.Kind = "kind with ünïcode"
	j.MaxRetries = 7
	j.Timeout = 90 * time.Second
	j.Retention = 3 * time.Hour
	j.UniqueKey = "unique key ✓"
	before := time.Now()
	add(t, s, j)
	after := time.Now()
	check := func(where string, got *store.JobRecord) {
		t.Helper()
		if got.Kind != j.Kind || got.MaxRetries != j.MaxRetries || got.Timeout != j.Timeout ||
			got.Retention != j.Retention || got.UniqueKey != j.UniqueKey {
			t.Fatalf("%s: Kind %q, MaxRetries %d, Timeout %v, Retention %v, UniqueKey %q; want %q, %d, %v, %v, %q",
				where, got.Kind, got.MaxRetries, got.Timeout, got.Retention, got.UniqueKey,
				j.Kind, j.MaxRetries, j.Timeout, j.Retention, j.UniqueKey)
		}
		requireNow(t, where+" EnqueuedAt", got.EnqueuedAt, before, after)
	}
	got := getJob(t, s, q, "fields")
	check("GetJob", got)
	if got.Attempt != 0 || !got.AttemptedAt.IsZero() || !got.FinishedAt.IsZero() || len(got.Errors) != 0 || got.Cancelled || got.Token != 0 {
		t.Fatalf("new job: Attempt %d, AttemptedAt %v, FinishedAt %v, Errors %v, Cancelled %v, Token %d; want all zero",
			got.Attempt, got.AttemptedAt, got.FinishedAt, got.Errors, got.Cancelled, got.Token)
	}
	c := claimOne(t, s, q, "fields", long)
	check("claimed job", c)
	if !c.EnqueuedAt.Equal(got.EnqueuedAt) {
		t.Fatalf("claimed job's EnqueuedAt %v differs from GetJob's %v", c.EnqueuedAt, got.EnqueuedAt)
	}
}
