package storetest

import (
	"testing"

	"github.com/hopperq/hopper/store"
)

// adminUniqueCases: the operator's actions release a unique key as the
// engine's do (see Engine/Unique).
func adminUniqueCases() []adminCase {
	return []adminCase{
		{name: "ReleasedAfterDelete", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testUniqueReleased(t, s, func(t *testing.T, s store.Store, q, holder string) {
				n, err := a.DeleteJobs(t.Context(), q, store.StateReady, []string{holder})
				if err != nil || n != 1 {
					t.Fatalf("Delete(ready, %q): got %d, %v; want 1, nil", holder, n, err)
				}
			})
		}},
		{name: "ReleasedAfterCancel", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testUniqueReleased(t, s, func(t *testing.T, s store.Store, q, holder string) {
				cancel(t, a, q, holder, store.StateReady)
			})
		}},
		{name: "ReleasedAfterCancelledRun", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testUniqueReleased(t, s, func(t *testing.T, s store.Store, q, holder string) {
				c := claimOne(t, s, q, holder, long)
				cancel(t, a, q, holder, store.StateUnack)
				requireUniqueDup(t, s, q, "while-cancelling", "k", holder, "held by a running job flagged cancelled")
				finishOK(t, s, failed(c, store.OutcomeCancel, store.ErrCancelled.Error(), 0))
			})
		}},
	}
}
