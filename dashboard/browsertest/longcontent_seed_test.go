package browsertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// longQueue is a queue name of the longest length a store takes (64).
var longQueue = "billing-reports-for-the-north-west-europe-region-" + strings.Repeat("q", 64-49)

// longArgs is a job whose kind is 240 characters and whose arguments and
// error are long unbroken strings: what breaks a layout that trusts its
// content.
type longArgs struct {
	Payload string
	Group   string
}

func (longArgs) Kind() string {
	return "reports.generate_quarterly_statement_" + strings.Repeat("for_every_customer_", 10) + strings.Repeat("x", 240-37-190)
}

// longJob holds the ids seeded by seedLongContent.
type longJob struct {
	Queue string
	Retry string // a job in retry with a long error
	Ready string // a job in ready with a long group
}

// seedLongContent puts, in queue longQueue, a job in retry with a
// 240-character kind, 600 characters of unbroken args and a 900-character
// unbroken error, and a ready one in a 100-character group.
func seedLongContent(t *testing.T, s hopper.Store) longJob {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	if n := len(longArgs{}.Kind()); n != 240 {
		t.Fatalf("the long kind is %d characters, want 240", n)
	}
	lj := longJob{Queue: longQueue}
	info, err := hopper.Enqueue(ctx, c, longArgs{Payload: strings.Repeat("a1b2c3d4", 75)}, &hopper.EnqueueOpts{Queue: longQueue})
	if err != nil {
		t.Fatal(err)
	}
	lj.Retry = info.ID
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: longQueue, Max: 1, Lease: time.Hour, WorkerID: "long-worker"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim: %v %v", res, err)
	}
	j := res.Jobs[0]
	if _, err := s.Finish(ctx, []store.AttemptEnd{{
		Queue: longQueue, ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeRetry, Delay: time.Hour,
		Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "upstream: " + strings.Repeat("ERRORCODE_0xDEADBEEF_", 45)},
	}}); err != nil {
		t.Fatal(err)
	}
	group := "tenant-" + strings.Repeat("g", 93)
	info, err = hopper.Enqueue(ctx, c, longArgs{Payload: strings.Repeat("z9", 300), Group: group}, &hopper.EnqueueOpts{Queue: longQueue, Group: group})
	if err != nil {
		t.Fatal(err)
	}
	lj.Ready = info.ID
	return lj
}
