package hopper

import (
	"reflect"
	"testing"

	"github.com/hopperq/hopper/store"
)

// Every field of store.NewJob (a JobSpec field added later included) has a
// way in from EnqueueOpts: an option of its name and type, another way
// newJob takes, or a reason it is not settable.
func TestEveryJobFieldHasAWayIn(t *testing.T) {
	for _, name := range optsMissing {
		f, _ := reflect.TypeFor[store.NewJob]().FieldByName(name)
		t.Errorf("store.NewJob.%s has no way in from EnqueueOpts: add EnqueueOpts.%s of type %s, or list it in optsOtherWay or optsNotSettable with the reason", name, name, f.Type)
	}
	for name := range optsOtherWay {
		if _, ok := reflect.TypeFor[store.NewJob]().FieldByName(name); !ok {
			t.Errorf("optsOtherWay names %s, which store.NewJob does not have", name)
		}
	}
	for name := range optsNotSettable {
		if _, ok := reflect.TypeFor[store.NewJob]().FieldByName(name); !ok {
			t.Errorf("optsNotSettable names %s, which store.NewJob does not have", name)
		}
	}
}

// Every EnqueueOpts field reaches the job: one of the same name, or
// Unique, which newJob reads.
func TestEveryOptionReachesTheJob(t *testing.T) {
	for _, f := range reflect.VisibleFields(reflect.TypeFor[EnqueueOpts]()) {
		if _, ok := reflect.TypeFor[store.NewJob]().FieldByName(f.Name); !ok && f.Name != "Unique" {
			t.Errorf("EnqueueOpts.%s has no NewJob field of its name and newJob does not read it", f.Name)
		}
	}
}
