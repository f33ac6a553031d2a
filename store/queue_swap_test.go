package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// ApplyChanges copies each field that differs between base and edited,
// every field of QueueConfig (found by reflection, so a new field is
// tested too), and no other.
func TestApplyChangesEveryField(t *testing.T) {
	current := store.QueueConfig{MaxRunning: 1, RateLimit: 2, RatePeriod: 3 * time.Second, Retention: 4 * time.Second,
		GroupMaxRunning: 5, GroupRateLimit: 6, GroupRatePeriod: 7 * time.Second, EventsMaxLen: 8}
	n := reflect.TypeFor[store.QueueConfig]().NumField()
	for i := range n {
		name := reflect.TypeFor[store.QueueConfig]().Field(i).Name
		var base store.QueueConfig
		edited := base
		f := reflect.ValueOf(&edited).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(100)
		default:
			t.Fatalf("field %s of kind %v: extend this test", name, f.Kind())
		}
		got := current
		got.ApplyChanges(base, edited)
		want := current
		reflect.ValueOf(&want).Elem().Field(i).Set(f)
		if got != want {
			t.Errorf("ApplyChanges with %s changed: %+v, want %+v", name, got, want)
		}
		same := current
		same.ApplyChanges(edited, edited)
		if same != current {
			t.Errorf("ApplyChanges with nothing changed: %+v, want %+v", same, current)
		}
	}
}
