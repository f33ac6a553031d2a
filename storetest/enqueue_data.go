package storetest

import (
	"bytes"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil/spectest"
	"github.com/hopperq/hopper/store"
)

// argVariant is one kind of args a store must keep byte for byte.
type argVariant struct {
	name string
	args []byte
}

func argVariants() []argVariant {
	all := make([]byte, 0, 512)
	for i := range 512 {
		all = append(all, byte(i))
	}
	large := make([]byte, 1<<20)
	for i := range large {
		large[i] = byte(i*7 + i>>8)
	}
	return []argVariant{
		{"Empty", []byte{}},
		{"Nil", nil},
		{"Binary", append([]byte{0, 0, 0xff, '{', '}', '"', '\\', 0}, all...)},
		{"ZeroBytes", make([]byte, 64)},
		{"OneMiB", large},
	}
}

func argsCases() []engineCase {
	var cases []engineCase
	for _, a := range argVariants() {
		cases = append(cases, engineCase{name: a.name, fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			j := job(q, "a")
			j.Args = a.args
			add(t, s, j)
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

// testMeta is metadata with the characters a store might mangle.
var testMeta = map[string]string{
	"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	"empty":       "",
	"ünïcode":     "välue ✓",
	"with space":  "a=b; c",
}

func testEnqueueMeta(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := job(q, "with-meta")
	j.Meta = maps.Clone(testMeta)
	add(t, s, j, job(q, "no-meta"))
	if got := claimOne(t, s, q, "with-meta", long).Meta; !maps.Equal(got, testMeta) {
		t.Fatalf("claimed job's Meta = %q, want %q", got, testMeta)
	}
	if got := claimOne(t, s, q, "no-meta", long).Meta; len(got) != 0 {
		t.Fatalf("job enqueued with nil Meta claimed with Meta %q, want none", got)
	}
}

// fieldsJob returns a job of q with every field a store keeps set to a
// value other than its default: every option of store.JobSpec, found by
// reflection, so that an option added to it is checked with no edit here
// (but Priority, which a grouped job cannot have).
func fieldsJob(q string) *store.NewJob {
	j := job(q, "fields")
	j.Kind = "kind with ünïcode"
	j.MaxRetries = 7
	j.Timeout = 90 * time.Second
	j.Retention = 3 * time.Hour
	j.UniqueKey = "unique key ✓"
	j.Meta = maps.Clone(testMeta)
	v := reflect.ValueOf(&j.JobSpec).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.IsZero() {
			continue
		}
		x, err := spectest.Value(v.Type().Field(i).Name, f.Type())
		if err != nil {
			panic("storetest: " + err.Error())
		}
		f.Set(x)
		if j.Validate() != nil {
			f.SetZero() // not with the others
		}
	}
	return j
}

// requireFields fails unless got has the fields of j (see fieldsJob) and
// was enqueued between before and after.
func requireFields(t *testing.T, where string, got, j *store.JobRecord, before, after time.Time) {
	t.Helper()
	if got.Kind != j.Kind || !reflect.DeepEqual(got.JobSpec, j.JobSpec) {
		t.Fatalf("%s: Kind %q, %+v; want %q, %+v", where, got.Kind, got.JobSpec, j.Kind, j.JobSpec)
	}
	requireNow(t, where+" EnqueuedAt", got.EnqueuedAt, before, after)
}

// record returns the fields of a NewJob that a JobRecord has too.
func record(j *store.NewJob) *store.JobRecord {
	return &store.JobRecord{ID: j.ID, Queue: j.Queue, Kind: j.Kind, JobSpec: j.JobSpec}
}

func testEnqueueFields(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := fieldsJob(q)
	before := time.Now()
	add(t, s, j)
	after := time.Now()
	c := claimOne(t, s, q, "fields", long)
	requireFields(t, "claimed job", c, record(j), before, after)
	if c.Attempt != 1 || c.AttemptedAt.IsZero() || !c.FinishedAt.IsZero() || len(c.Errors) != 0 || c.Cancelled ||
		c.Token == 0 || c.Deadline.IsZero() || len(c.Result) != 0 {
		t.Fatalf("first claim of a new job: Attempt %d, AttemptedAt %v, FinishedAt %v, Errors %v, Cancelled %v, Token %d, Deadline %v, Result %q;"+
			" want Attempt 1, AttemptedAt, Token and Deadline set, the rest zero",
			c.Attempt, c.AttemptedAt, c.FinishedAt, c.Errors, c.Cancelled, c.Token, c.Deadline, c.Result)
	}
}
