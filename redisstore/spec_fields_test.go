package redisstore

import (
	"testing"

	"github.com/hopperq/hopper/internal/testutil/spectest"
	"github.com/hopperq/hopper/store"
)

// TestEveryJobFieldInEnvelope walks every field of store.NewJob by
// reflection through the envelope alone (encodeValue, decodeValue): each
// comes out as it went in, or is in spectest.Omissions with the reason.
// hopper's TestEveryJobFieldSurvives walks them through the store.
func TestEveryJobFieldInEnvelope(t *testing.T) {
	for _, f := range spectest.Fields() {
		t.Run(f.Name, func(t *testing.T) {
			want, err := spectest.Job(f)
			if err != nil {
				t.Fatal(err)
			}
			rec := store.JobRecord{ID: want.ID}
			if err := decodeValue("1700000000123,"+string(encodeValue(&want)), &rec); err != nil {
				t.Fatal(err)
			}
			if err := spectest.Check(spectest.Envelope, f, want, &rec); err != nil {
				t.Error(err)
			}
		})
	}
}
