package redisstore

import (
	"testing"

	"github.com/hopperq/hopper/internal/testutil/spectest"
)

// fieldScripts says, for every field of store.NewJob, what the enqueue
// script must do with it beside storing it in the envelope (envelope.go):
// "" nothing, "extras" the adds/extras.lua path (a unique key, a tick, a
// Replace, an explicit due time), "P" or "G" the ready slot of priority
// levels or groups. A field missing here fails TestEveryJobFieldPicksItsScript:
// a new field must say which, so that it never silently takes a path that
// ignores it.
var fieldScripts = map[string]string{
	"ID": "", "Queue": "", "Kind": "", "Args": "", "Meta": "", "MaxRetries": "", "Timeout": "", "Retention": "",
	"Delay":     "", // a due argument every variant reads
	"Priority":  "P",
	"Group":     "G",
	"UniqueKey": "extras", "UniqueFor": "extras",
	"RunAt":    "extras", // the time it fell due is kept when it is already due
	"Replace":  "extras",
	"Schedule": "extras", "Tick": "extras",
}

// TestEveryJobFieldPicksItsScript walks every field of store.NewJob (its
// JobSpec's included) and checks that a job with it set goes to the
// variant of the enqueue script that reads it (fieldScripts).
func TestEveryJobFieldPicksItsScript(t *testing.T) {
	for _, f := range spectest.Fields() {
		want, ok := fieldScripts[f.Name]
		if !ok {
			t.Errorf("store.NewJob.%s: say in fieldScripts what the enqueue script does with it (\"\" when only the envelope carries it)", f.Name)
			continue
		}
		j, err := spectest.Job(f)
		if err != nil {
			t.Fatalf("a job with %s set: %v", f.Name, err)
		}
		e := newEncJob(&j, nil)
		got := ""
		switch {
		case e.extra:
			got = "extras"
		case e.shape&shapeGroups != 0:
			got = "G"
		case e.shape&shapePrio != 0:
			got = "P"
		}
		if got != want {
			t.Errorf("a job with %s set takes the enqueue path %q, want %q", f.Name, got, want)
		}
	}
}
