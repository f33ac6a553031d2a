package hopper

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// taskLacks and scheduleLacks are the EnqueueOpts fields TaskOpts and
// ScheduleOpts leave out on purpose: what the call decides itself.
var (
	taskLacks     = []string{"ID", "Unique", "Replace"}
	scheduleLacks = []string{"ID", "Delay", "RunAt", "Replace"}
)

// TestOptsTypesAgree: TaskOpts and ScheduleOpts hold EnqueueOpts fields
// only (same name, same type), every EnqueueOpts field but the ones their
// call decides, and their conversions carry every field. A new EnqueueOpts
// field fails here until it is added to both or left out on purpose.
func TestOptsTypesAgree(t *testing.T) {
	check := func(t *testing.T, sub reflect.Type, lacks []string, convert func(reflect.Value) *EnqueueOpts) {
		et := reflect.TypeFor[EnqueueOpts]()
		for _, f := range reflect.VisibleFields(sub) {
			ef, ok := et.FieldByName(f.Name)
			if !ok || ef.Type != f.Type {
				t.Errorf("%s.%s (%v) is not an EnqueueOpts field of that type", sub.Name(), f.Name, f.Type)
			}
			if slices.Contains(lacks, f.Name) {
				t.Errorf("%s has %s, which its call decides", sub.Name(), f.Name)
			}
		}
		for _, f := range reflect.VisibleFields(et) {
			if _, ok := sub.FieldByName(f.Name); !ok && !slices.Contains(lacks, f.Name) {
				t.Errorf("EnqueueOpts.%s is missing from %s: add it, or list it as one the call decides", f.Name, sub.Name())
			}
		}
		// Every field set, converted: each arrives.
		v := reflect.New(sub)
		for i := range sub.NumField() {
			set(t, v.Elem().Field(i))
		}
		got := reflect.ValueOf(convert(v)).Elem()
		for i := range sub.NumField() {
			name := sub.Field(i).Name
			if !reflect.DeepEqual(got.FieldByName(name).Interface(), v.Elem().Field(i).Interface()) {
				t.Errorf("%s.%s did not reach EnqueueOpts", sub.Name(), name)
			}
		}
	}
	t.Run("TaskOpts", func(t *testing.T) {
		check(t, reflect.TypeFor[TaskOpts](), taskLacks, func(v reflect.Value) *EnqueueOpts { return v.Interface().(*TaskOpts).enqueueOpts() })
	})
	t.Run("ScheduleOpts", func(t *testing.T) {
		check(t, reflect.TypeFor[ScheduleOpts](), scheduleLacks, func(v reflect.Value) *EnqueueOpts { return v.Interface().(*ScheduleOpts).enqueueOpts() })
	})
}

// set gives v a non-zero value of its type.
func set(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		if v.Type() == reflect.TypeFor[time.Duration]() {
			v.SetInt(int64(time.Second))
		} else {
			v.SetInt(2)
		}
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]string{"k": "v"}))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		set(t, v.Index(0))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1e9, 0)))
			return
		}
		t.Fatalf("no value for %v", v.Type())
	default:
		t.Fatalf("no value for %v", v.Type())
	}
}

// ownOpts gives itself every option, those no task or schedule takes
// included.
type ownOpts struct{}

func (ownOpts) Kind() string { return "own" }
func (ownOpts) EnqueueOpts() EnqueueOpts {
	return EnqueueOpts{
		Queue: "own", ID: "fixed", Delay: time.Hour, RunAt: time.Unix(2e9, 0),
		Unique: &UniqueOpts{Key: "k"}, Replace: ReplaceArgs, MaxRetries: 3,
	}
}

// TestArgsDefaultsAUseLacksAreIgnored: an args type's own options that a
// task or a schedule does not take are dropped there, the others kept.
func TestArgsDefaultsAUseLacksAreIgnored(t *testing.T) {
	for _, tc := range []struct {
		use   optsFor
		lacks []string
	}{{forTask, taskLacks}, {forSchedule, scheduleLacks}} {
		o := mergeOpts(ownOpts{}, nil, tc.use)
		v := reflect.ValueOf(o)
		for _, name := range tc.lacks {
			if !v.FieldByName(name).IsZero() {
				t.Errorf("use %d: %s = %v from the args' defaults, want it dropped", tc.use, name, v.FieldByName(name))
			}
		}
		if o.Queue != "own" || o.MaxRetries != 3 {
			t.Errorf("use %d: queue %q, retries %d; want the args' own kept", tc.use, o.Queue, o.MaxRetries)
		}
	}
	if o := mergeOpts(ownOpts{}, nil, forEnqueue); o.ID != "fixed" || o.Unique == nil || o.Replace != ReplaceArgs {
		t.Errorf("Enqueue dropped the args' own ID, Unique or Replace: %+v", o)
	}
}
