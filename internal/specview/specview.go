// Package specview lists a job's options (store.JobSpec) for the pages and
// commands that show a job (the dashboard's job page, "hopper jobs show"),
// so that an option added to JobSpec is shown with no edit to them: they
// give some fields a look of their own and show every other one by its
// label and value.
//
// It also gives a job's failed attempts (store.AttemptError) under the
// JSON names the dashboard's JSON and "hopper jobs --json" share.
package specview

import (
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/hopperq/hopper/store"
)

// Field is one option of a job.
type Field struct {
	// Name is the JobSpec field's name ("UniqueKey").
	Name string
	// Label is Name for people: words split, the first capitalised
	// ("Unique key").
	Label string
	// Value is the field's value: a string, an int, a time.Duration, a
	// map[string]string...
	Value any
	// Zero reports the zero value (for a slice or map, also empty): the
	// option is not set.
	Zero bool
}

// Fields returns every field of s, in JobSpec's order.
func Fields(s *store.JobSpec) []Field {
	v := reflect.ValueOf(s).Elem()
	out := make([]Field, 0, v.NumField())
	for i, f := range fields {
		fv := v.Field(i)
		zero := fv.IsZero() || (fv.Kind() == reflect.Map || fv.Kind() == reflect.Slice) && fv.Len() == 0
		out = append(out, Field{Name: f.name, Label: f.label, Value: fv.Interface(), Zero: zero})
	}
	return out
}

var fields = func() []struct{ name, label string } {
	t := reflect.TypeFor[store.JobSpec]()
	out := make([]struct{ name, label string }, t.NumField())
	for i := range out {
		out[i].name = t.Field(i).Name
		out[i].label = Label(out[i].name)
	}
	return out
}()

// Label spells a Go field name for people: "UniqueKey" is "Unique key",
// "MaxRetries" "Max retries", "TTL" "TTL".
func Label(name string) string {
	var b strings.Builder
	r := []rune(name)
	for i, c := range r {
		upper := unicode.IsUpper(c)
		if i > 0 && upper && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])) {
			b.WriteByte(' ')
		}
		if i > 0 && upper && (i+1 < len(r) && unicode.IsLower(r[i+1])) {
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// JSONOptions returns the options of s that are set, but Meta, by the
// names the dashboard's JSON and "hopper jobs --json" give them: the
// label in snake_case, a duration in whole milliseconds under
// <name>_ms. It returns nil when none is set.
func JSONOptions(s *store.JobSpec) map[string]any {
	var out map[string]any
	for _, f := range Fields(s) {
		if f.Zero || f.Name == "Meta" {
			continue
		}
		name, v := strings.ReplaceAll(strings.ToLower(f.Label), " ", "_"), f.Value
		if d, ok := v.(time.Duration); ok {
			name, v = name+"_ms", d.Milliseconds()
		}
		if out == nil {
			out = map[string]any{}
		}
		out[name] = v
	}
	return out
}
