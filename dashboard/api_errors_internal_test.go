package dashboard

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/specview"
	"github.com/hopperq/hopper/store"
)

// TestErrorJSONEveryField: every field of store.AttemptError has its
// snake_case name in errorJSON, so a field added to the record is not
// left out of the JSON as StartedAt and Worker were.
func TestErrorJSONEveryField(t *testing.T) {
	names := map[string]bool{}
	jt := reflect.TypeFor[errorJSON]()
	for i := range jt.NumField() {
		name, _, _ := strings.Cut(jt.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	st := reflect.TypeFor[store.AttemptError]()
	for i := range st.NumField() {
		f := st.Field(i).Name
		if want := strings.ReplaceAll(strings.ToLower(specview.Label(f)), " ", "_"); !names[want] {
			t.Errorf("store.AttemptError.%s has no %q in errorJSON", f, want)
		}
	}
}
