package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFarFutureDue: a job due centuries ahead (jobs reschedule --at takes
// any RFC 3339 time up to the year 9999) is shown due in years and days
// by jobs show and jobs list. Past 292 years both said "in
// -2562047h47m16.854775808s": the time from now saturated at the least
// Duration, and its negation overflowed.
func TestFarFutureDue(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		wantCode(t, c.run(t, "jobs", "reschedule", "--at", "9999-12-31T00:00:00Z", ids.pending), 0, "reschedule to 9999")
		show := c.run(t, "jobs", "show", "--queue", "default", ids.pending)
		list := c.run(t, "jobs", "list", "--state", "pending")
		for _, tc := range []struct {
			what string
			r    result
			want *regexp.Regexp
		}{
			{"jobs show", show, regexp.MustCompile(`Due: +9999-12-31 00:00:00\.000 UTC \(in 79\d\dy\d{1,3}d\)\n`)},
			{"jobs list", list, regexp.MustCompile(ids.pending + `.* in 79\d\dy\d{1,3}d `)},
		} {
			wantCode(t, tc.r, 0, tc.what)
			if !tc.want.MatchString(tc.r.stdout) || strings.Contains(tc.r.stdout, "in -") {
				t.Errorf("%s: want the due time in years and days (%s):\n%s", tc.what, tc.want, tc.r.stdout)
			}
		}
	})
}

func TestRelative(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "-"}, {now, "0s ago"}, {now.Add(-192 * time.Second), "3m12s ago"}, {now.Add(5 * time.Second), "in 5s"},
		{now.Add(364 * 24 * time.Hour), "in 8736h0m0s"},
		{now.AddDate(1, 0, 3), "in 1y3d"}, {now.AddDate(400, 0, 0), "in 400y0d"},
		{time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC), "in 373y364d"},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), "in 7973y363d"},
		{now.AddDate(-300, 0, -5), "300y5d ago"},
	} {
		if got := relative(now, tc.t); got != tc.want {
			t.Errorf("relative(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
