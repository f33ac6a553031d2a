package dashboard_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestFarFutureDue: a job rescheduled to the last day an "at" takes (the
// year 9999) is shown due in years and days, on its page and in its
// queue's list. Past 292 years both said "in -9223372036854ms": the time
// from now saturated at the least Duration, and its negation overflowed.
func TestFarFutureDue(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
		h := newHandler(s, &dashboard.Config{Now: func() time.Time { return now }})
		job := "/jobs/default/" + f.Pending
		wantRedirect(t, post(t, h, job+"/reschedule", url.Values{"at": {"9999-12-31T00:00:00Z"}}), job+"?flash=rescheduled", "reschedule to 9999")
		// 7973 years to 9999-01-01 12:00, then 363 days and 12 hours.
		for target, want := range map[string]string{
			job:                       `9999-12-31 00:00:00.000 UTC <span class="muted">(in 7973y 363d)</span></time>`,
			"/queues/default/pending": `title="9999-12-31 00:00:00.000 UTC">in 7973y 363d</time>`,
		} {
			body := get(t, h, target).Body
			wantContains(t, body, target, want)
			wantLacks(t, body, target, "in -")
		}
	})
}
