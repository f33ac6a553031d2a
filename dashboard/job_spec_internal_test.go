package dashboard

import (
	"reflect"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// Every option of a job that is set shows on its page (Meta in its own
// panel), an option added to store.JobSpec included: the rows are derived
// from its fields.
func TestSpecRowsShowEveryOption(t *testing.T) {
	job := &hopper.JobRecord{ID: "j"}
	v := reflect.ValueOf(&job.JobSpec).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Interface().(type) {
		case time.Duration:
			f.SetInt(int64(time.Second))
		case map[string]string:
			f.Set(reflect.ValueOf(map[string]string{"k": "v"}))
		case string:
			f.SetString("x")
		case int:
			f.SetInt(1)
		default:
			t.Fatalf("JobSpec.%s: give it a value here", v.Type().Field(i).Name)
		}
	}
	shown := map[string]bool{}
	for _, r := range specRows(job) {
		shown[r.Name] = true
		if r.Text == "" {
			t.Errorf("option %s shows no text", r.Name)
		}
	}
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; !shown[name] && !specHidden[name] {
			t.Errorf("option %s, set, is not shown", name)
		}
	}
	// Unset, only the ones always shown remain.
	for _, r := range specRows(&hopper.JobRecord{}) {
		if !specAlways[r.Name] {
			t.Errorf("unset option %s shown", r.Name)
		}
	}
}
