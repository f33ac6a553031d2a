package hopper

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/testutil/spectest"
	"github.com/hopperq/hopper/internal/testutil/teststore"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// specArgs are args of any kind that encode to the msgpack string v, so
// that a job's Kind and Args can be set through Enqueue.
type specArgs struct{ kind, v string }

func (a specArgs) Kind() string                             { return a.kind }
func (a specArgs) EncodeMsgpack(enc *msgpack.Encoder) error { return enc.EncodeString(a.v) }

// TestEveryJobFieldSurvives walks every field of store.NewJob, its
// JobSpec's included, by reflection: a valid job with that field set goes
// through every format and path, and comes out with the field as it went
// in, unless spectest.Omissions lists it for that path with the reason.
// A field added to JobSpec is walked with no edit here; a format or path
// that drops it fails.
//
// Paths: EnqueueOpts → NewJob; PreparedJob MarshalBinary →
// UnmarshalBinary → EnqueuePrepared → GetJob; Store.Enqueue →
// GetJob; stored schedule put → list; on memstore and Redis. The Redis
// envelope's encode → decode alone is redisstore's TestEveryJobFieldInEnvelope.
func TestEveryJobFieldSurvives(t *testing.T) {
	if err := spectest.CheckOmissions(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, f := range spectest.Fields() {
		t.Run(f.Name, func(t *testing.T) {
			want, err := spectest.Job(f)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("opts", func(t *testing.T) {
				j, err := NewClient(memstore.New(nil), nil).newJob(argsOf(want), optsOf(t, want), forEnqueue, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				if err := spectest.Check(spectest.Opts, f, want, j.job); err != nil {
					t.Error(err)
				}
			})
			in := want
			in.Delay = 0 // fixed into RunAt by Prepare: MarshalBinary refuses a Delay
			b, err := (&PreparedJob{job: in}).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var prepared PreparedJob
			if err := prepared.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if err := spectest.Check(spectest.Prepared, f, want, prepared.job); err != nil {
				t.Error(err)
			}
			for _, k := range teststore.StoreKinds() {
				t.Run(k.Name, func(t *testing.T) {
					st := k.Open(t)()
					ins := NewInspector(st)
					res, err := st.Enqueue(ctx, []*store.NewJob{&want})
					if err != nil || res[0].Err != nil || res[0].Duplicate {
						t.Fatalf("Enqueue = %+v, %v", res, err)
					}
					rec, err := ins.GetJob(ctx, want.Queue, want.ID)
					if err != nil {
						t.Fatal(err)
					}
					if err := spectest.Check(spectest.Record, f, want, rec); err != nil {
						t.Error(err)
					}

					// The prepared job, in a queue of its own.
					p := prepared
					p.job.Queue += "-prepared"
					if _, err := EnqueuePrepared(ctx, NewClient(st, nil), []*PreparedJob{&p}); err != nil {
						t.Fatal(err)
					}
					rec, err = ins.GetJob(ctx, p.job.Queue, p.job.ID)
					if err != nil {
						t.Fatal(err)
					}
					if f.Name != "Queue" {
						if err := spectest.Check(spectest.Record, f, p.job, rec); err != nil {
							t.Errorf("prepared: %v", err)
						}
					}

					if _, refused := spectest.Omissions[spectest.Schedule][f.Name]; refused {
						return
					}
					sj := want
					sj.ID = ""
					ss := st.(store.ScheduleStore)
					if err := ss.PutSchedule(ctx, store.StoredSchedule{Name: "every-field", Queue: want.Queue, Spec: "@every 1h", Job: sj}); err != nil {
						t.Fatal(err)
					}
					list, _, err := ss.ListStoredSchedules(ctx)
					if err != nil || len(list) != 1 {
						t.Fatalf("ListStoredSchedules = %+v, %v", list, err)
					}
					if err := spectest.Check(spectest.Schedule, f, want, list[0].Job); err != nil {
						t.Error(err)
					}
				})
			}
		})
	}
}

// argsOf returns args that encode to j's Args (a msgpack string, as
// spectest makes them) under j's Kind.
func argsOf(j store.NewJob) specArgs {
	var v string
	if err := msgpack.Unmarshal(j.Args, &v); err != nil {
		panic(err)
	}
	return specArgs{kind: j.Kind, v: v}
}

// optsOf returns the options that make newJob build j: every field of j
// that an option of its name sets, and Unique for the unique key.
func optsOf(t *testing.T, j store.NewJob) *EnqueueOpts {
	o := &EnqueueOpts{}
	ov, jv := reflect.ValueOf(o).Elem(), reflect.ValueOf(j)
	for _, f := range spectest.Fields() {
		of := ov.FieldByName(f.Name)
		if !of.IsValid() {
			continue
		}
		if of.Type() != f.Type {
			t.Fatalf("EnqueueOpts.%s is a %s, NewJob's a %s", f.Name, of.Type(), f.Type)
		}
		of.Set(jv.FieldByIndex(f.Index))
	}
	if j.UniqueKey != "" {
		o.Unique = &UniqueOpts{Key: j.UniqueKey, For: j.UniqueFor}
	}
	return o
}
