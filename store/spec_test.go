package store_test

import (
	"reflect"
	"testing"

	"github.com/hopperq/hopper/internal/wire"
	"github.com/hopperq/hopper/store"
)

// Every option has a wire key, so every keyed format carries it, and the
// codecs of JobSpec and NewJob build (a type wire cannot encode, or a key
// used twice, panics).
func TestJobSpecFieldsHaveWireKeys(t *testing.T) {
	st := reflect.TypeFor[store.JobSpec]()
	for i := range st.NumField() {
		if f := st.Field(i); f.Tag.Get("wire") == "" {
			t.Errorf("JobSpec.%s has no wire tag: no keyed format would carry it", f.Name)
		}
	}
	if n := len(wire.New[store.JobSpec]().Fields()); n != st.NumField() {
		t.Errorf("the JobSpec codec carries %d fields of %d", n, st.NumField())
	}
	wire.New[store.NewJob]()
}

// Clone shares no map with the original.
func TestJobSpecClone(t *testing.T) {
	s := store.JobSpec{Meta: map[string]string{"k": "v"}, Priority: 2}
	c := s.Clone()
	c.Meta["k"] = "changed"
	if s.Meta["k"] != "v" || c.Priority != 2 {
		t.Fatalf("Clone shares its Meta or lost a field: %+v, %+v", s, c)
	}
	if (store.JobSpec{}).Clone().Meta != nil {
		t.Fatal("Clone of a nil Meta is not nil")
	}
}
