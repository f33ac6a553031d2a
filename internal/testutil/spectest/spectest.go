// Package spectest walks every field of a job (store.NewJob, its JobSpec's
// included) through the formats and paths that carry it, so that a test
// fails when one drops a field: Fields lists them by reflection, Job makes
// a valid job with one set, Check compares it after a path, and Omissions
// is the one table of the fields a path leaves out on purpose, each with
// the reason. A field added to JobSpec is walked with no edit here, unless
// it has a type Value does not know (the test then says so) or rules that
// need another field (Needs).
package spectest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// Path names a format or path a job's fields go through.
type Path string

// The paths the reflection tests walk.
const (
	// Opts is hopper.EnqueueOpts to the store.NewJob a Client enqueues.
	Opts Path = "EnqueueOpts → NewJob"
	// Envelope is redisstore's value of a job, encoded and decoded.
	Envelope Path = "Redis envelope encode → decode"
	// Prepared is hopper.PreparedJob through MarshalBinary and
	// UnmarshalBinary.
	Prepared Path = "PreparedJob Marshal → Unmarshal"
	// Schedule is a stored schedule's job, put and listed.
	Schedule Path = "stored schedule put → list"
	// Record is a store's enqueue then GetJob (directly, or through
	// EnqueuePrepared).
	Record Path = "enqueue → GetJob"
)

// Omissions are the fields each path leaves out on purpose, and why. A
// field not listed for a path must come out of it as it went in.
var Omissions = map[Path]map[string]string{
	Opts: {
		"Schedule": "only the Scheduler makes periodic jobs: no enqueue option sets it (hopper's optsNotSettable)",
		"Tick":     "only the Scheduler makes periodic jobs: no enqueue option sets it (hopper's optsNotSettable)",
	},
	Envelope: {
		"ID":       "the field of the jobs hash that holds the value",
		"Queue":    "the key of the jobs hash (the queue's hash tag)",
		"RunAt":    "the score of the pending set; the record's RunAt is checked on the Record path",
		"Delay":    "becomes the due time, a score, on the server's clock",
		"Replace":  "an enqueue directive, an argument of the enqueue script",
		"Schedule": "an enqueue directive: the last tick is kept in the queue's ticks hash",
		"Tick":     "an enqueue directive: the last tick is kept in the queue's ticks hash",
	},
	Prepared: {
		"Delay":    "Prepare turns it into RunAt on the preparing process's clock (TestPreparedDelayIsFixed); MarshalBinary refuses a job with one (TestClientMiddlewareSeesTheJob)",
		"Schedule": "a prepared job is never periodic: Prepare cannot make one",
		"Tick":     "a prepared job is never periodic: Prepare cannot make one",
	},
	Schedule: {
		"ID":       "each tick's job gets a new ID (StoredSchedule.Validate refuses one)",
		"RunAt":    "each tick's job is due at its tick (StoredSchedule.Validate refuses one)",
		"Delay":    "each tick's job is due at its tick (StoredSchedule.Validate refuses one)",
		"Replace":  "a tick is enqueued once (StoredSchedule.Validate refuses one)",
		"Schedule": "the tick's: the stored schedule's name (StoredSchedule.Validate refuses one)",
		"Tick":     "the tick's (StoredSchedule.Validate refuses one)",
	},
	Record: {
		"Delay":    "becomes the record's RunAt, on the store's clock (Check compares RunAt with EnqueuedAt+Delay)",
		"Replace":  "an enqueue directive, not kept (TestPreparedReplace and storetest check what it does)",
		"Schedule": "kept per queue with its last tick, not on the record (storetest checks periodic ticks)",
		"Tick":     "kept per queue as the schedule's last tick, not on the record (storetest checks periodic ticks)",
	},
}

// Needs are the fields a field is valid only with; Job sets them too.
var Needs = map[string][]string{
	"UniqueFor": {"UniqueKey"},
	"Schedule":  {"Tick"},
	"Tick":      {"Schedule"},
}

// Field is one field of store.NewJob.
type Field struct {
	Name  string
	Index []int
	Type  reflect.Type
}

// Fields returns every field of store.NewJob, its JobSpec's included
// (not JobSpec itself), in order.
func Fields() []Field {
	var out []Field
	for _, f := range reflect.VisibleFields(reflect.TypeFor[store.NewJob]()) {
		if !f.Anonymous && f.IsExported() {
			out = append(out, Field{Name: f.Name, Index: f.Index, Type: f.Type})
		}
	}
	return out
}

// Base is the valid job Job starts from.
func Base() store.NewJob {
	return store.NewJob{ID: "base-id", Queue: "base-queue", Kind: "base.kind", Args: []byte{0xa4, 'b', 'a', 's', 'e'}}
}

// At is the time a time field is set to: in the future (a job due then
// waits in pending), at millisecond resolution (the stores').
var At = time.UnixMilli(4102444800123) // 2100-01-01

// Value returns the non-zero, valid test value of a field of type t named
// name, or an error for a type it does not know (add it here).
func Value(name string, t reflect.Type) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	word := "v-" + strings.ToLower(name)
	switch {
	case t == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(At))
	case t == reflect.TypeFor[time.Duration]():
		v.SetInt(int64(1500 * time.Millisecond))
	case t == reflect.TypeFor[map[string]string]():
		v.Set(reflect.ValueOf(map[string]string{"k-" + strings.ToLower(name): "v"}))
	case t == reflect.TypeFor[[]string]():
		v.Set(reflect.ValueOf([]string{word}))
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		v.SetBytes(append([]byte{0xa0 | byte(len(word))}, word...)) // msgpack, for Args
	case t.Kind() == reflect.String:
		v.SetString(word)
	case t.Kind() == reflect.Bool:
		v.SetBool(true)
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		v.SetInt(2)
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		v.SetUint(1)
	default:
		return v, fmt.Errorf("spectest: no test value for field %s of type %s: add one to Value", name, t)
	}
	return v, nil
}

// Job returns Base with field f, and the fields it needs, set to their
// test values.
func Job(f Field) (store.NewJob, error) {
	j := Base()
	v := reflect.ValueOf(&j).Elem()
	for _, name := range append([]string{f.Name}, Needs[f.Name]...) {
		sf, _ := reflect.TypeFor[store.NewJob]().FieldByName(name)
		x, err := Value(name, sf.Type)
		if err != nil {
			return j, err
		}
		v.FieldByIndex(sf.Index).Set(x)
	}
	return j, j.Validate()
}

// Check returns an error when field f of want did not come out of path p
// as it went in: got (a store.NewJob or a store.JobRecord, or a pointer to
// one) has no field of its name that holds the same value. A field in
// Omissions for p is not compared; on the Record path, a Delay is checked
// against the record's RunAt.
func Check(p Path, f Field, want store.NewJob, got any) error {
	if _, omitted := Omissions[p][f.Name]; omitted {
		if f.Name == "Delay" && p == Record {
			if rec, ok := deref(got).Interface().(store.JobRecord); ok && rec.RunAt.Sub(rec.EnqueuedAt) < want.Delay {
				return fmt.Errorf("%s: a Delay of %v gave a RunAt %v after the enqueue", p, want.Delay, rec.RunAt.Sub(rec.EnqueuedAt))
			}
		}
		return nil
	}
	g := deref(got)
	gf := g.FieldByName(f.Name)
	if !gf.IsValid() {
		return fmt.Errorf("%s: %s has no field %s: carry it, or list it in spectest.Omissions with why", p, g.Type(), f.Name)
	}
	wf := reflect.ValueOf(want).FieldByIndex(f.Index)
	if !equal(wf, gf) {
		return fmt.Errorf("%s drops or changes %s: went in as %v, came out as %v", p, f.Name, wf, gf)
	}
	return nil
}

func deref(v any) reflect.Value {
	r := reflect.ValueOf(v)
	if r.Kind() == reflect.Pointer {
		r = r.Elem()
	}
	return r
}

// equal compares two values of a field: times by instant, the rest deeply.
func equal(a, b reflect.Value) bool {
	if a.Type() == reflect.TypeFor[time.Time]() {
		return a.Interface().(time.Time).Equal(b.Interface().(time.Time))
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// CheckOmissions returns an error for an entry of Omissions that names no
// field of store.NewJob (a field renamed or gone: the table is stale).
func CheckOmissions() error {
	var names []string
	for _, f := range Fields() {
		names = append(names, f.Name)
	}
	for p, m := range Omissions {
		for name := range m {
			if !slices.Contains(names, name) {
				return fmt.Errorf("spectest.Omissions[%s] names %s, which store.NewJob does not have", p, name)
			}
		}
	}
	return nil
}
