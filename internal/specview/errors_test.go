package specview

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// TestJSONErrorEveryField: every field of store.AttemptError has its
// snake_case name in JSONError, so a field added to the record is not
// left out of the JSON as StartedAt and Worker were. (It tested the
// dashboard's errorJSON, which the hopper command wrote again.)
func TestJSONErrorEveryField(t *testing.T) {
	names := map[string]bool{}
	jt := reflect.TypeFor[JSONError]()
	for i := range jt.NumField() {
		name, _, _ := strings.Cut(jt.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	st := reflect.TypeFor[store.AttemptError]()
	for i := range st.NumField() {
		f := st.Field(i).Name
		if want := strings.ReplaceAll(strings.ToLower(Label(f)), " ", "_"); !names[want] {
			t.Errorf("store.AttemptError.%s has no %q in JSONError", f, want)
		}
	}
}

func TestJSONErrors(t *testing.T) {
	if JSONErrors(nil) != nil {
		t.Error("JSONErrors(nil) is not nil")
	}
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	got, err := json.Marshal(JSONErrors([]store.AttemptError{
		{Attempt: 1, At: at, Error: "lease expired"},
		{Attempt: 2, At: at, Error: "boom", Stack: "main.f()", StartedAt: at.Add(-time.Second), Worker: "w-1"},
	}))
	want := `[{"attempt":1,"at":"2026-11-24T08:00:00Z","error":"lease expired"},` +
		`{"attempt":2,"at":"2026-11-24T08:00:00Z","error":"boom","stack":"main.f()","started_at":"2026-11-24T07:59:59Z","worker":"w-1"}]`
	if err != nil || string(got) != want {
		t.Errorf("JSONErrors as JSON:\n%s, %v\nwant\n%s", got, err, want)
	}
}
