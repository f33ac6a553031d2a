package specview

import (
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"UniqueKey": "Unique key", "MaxRetries": "Max retries", "Group": "Group", "TTL": "TTL",
		"HTTPTimeout": "HTTP timeout", "RunAtMS": "Run at MS", "A": "A",
	} {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFields(t *testing.T) {
	s := store.JobSpec{Priority: 2, UniqueFor: time.Minute, Meta: map[string]string{}}
	fs := Fields(&s)
	if len(fs) == 0 || fs[0].Name != "Group" || !fs[0].Zero {
		t.Fatalf("first field %+v, want Group, zero", fs)
	}
	got := map[string]Field{}
	for _, f := range fs {
		got[f.Name] = f
	}
	if f := got["Priority"]; f.Zero || f.Value != 2 || f.Label != "Priority" {
		t.Errorf("Priority = %+v", f)
	}
	if f := got["UniqueFor"]; f.Zero || f.Value != time.Minute || f.Label != "Unique for" {
		t.Errorf("UniqueFor = %+v", f)
	}
	if !got["Meta"].Zero {
		t.Error("an empty Meta is not zero")
	}
}
