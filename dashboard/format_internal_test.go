package dashboard

import (
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		340 * time.Millisecond: "340ms", 4200 * time.Millisecond: "4.2s", 12 * time.Second: "12s",
		5*time.Minute + 3*time.Second: "5m 3s", 2*time.Hour + 5*time.Minute: "2h 5m", 76 * time.Hour: "3d 4h",
		-12 * time.Second: "12s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "—"}, {now, "now"}, {now.Add(-90 * time.Second), "1m 30s ago"}, {now.Add(12 * time.Second), "in 12s"},
		{now.Add(500 * time.Millisecond), "now"}, {now.Add(364 * 24 * time.Hour), "in 364d 0h"},
		// From a year on, in years and days: past 292 years a Duration
		// saturates (the year 9999 was "in -9223372036854ms").
		{now.AddDate(1, 0, 3), "in 1y 3d"}, {now.AddDate(400, 0, 0), "in 400y 0d"},
		{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), "in 7973y 364d"}, {now.AddDate(-300, 0, -5), "300y 5d ago"},
	} {
		if got := ago(now, c.t); got != c.want {
			t.Errorf("ago(%v) = %q, want %q", c.t, got, c.want)
		}
	}
	if got := formatLatency(0); got != "—" {
		t.Errorf("formatLatency(0) = %q", got)
	}
}

func TestTruncate(t *testing.T) {
	if got := truncate("héllo wörld", 5); got != "héll…" {
		t.Errorf("truncate = %q", got)
	}
	if got := truncate("short", 5); got != "short" {
		t.Errorf("truncate = %q", got)
	}
}

func TestParseTraceparent(t *testing.T) {
	for in, want := range map[string][2]string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": {"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"},
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01": {"", ""}, // all-zero trace ID is invalid
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01": {"", ""}, // upper case is invalid
		"garbage": {"", ""}, "": {"", ""},
	} {
		tr, sp := parseTraceparent(in)
		if tr != want[0] || sp != want[1] {
			t.Errorf("parseTraceparent(%q) = %q, %q; want %q, %q", in, tr, sp, want[0], want[1])
		}
	}
}

func TestChart(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 30, 45, 0, time.UTC)
	start := windowStart(now)
	if want := time.Date(2026, 1, 1, 11, 31, 0, 0, time.UTC); !start.Equal(want) {
		t.Fatalf("windowStart = %v, want %v", start, want)
	}
	points := []hopper.ThroughputPoint{
		{Minute: start.Add(-time.Minute), Done: 100},                  // before the window: dropped
		{Minute: start, Done: 10, Failed: 0},                          // first bar
		{Minute: start.Add(30 * time.Minute), Done: 15, Failed: 5},    // tallest
		{Minute: now.Truncate(time.Minute).Add(time.Minute), Done: 1}, // a minute ahead: counted last
	}
	c := newChart(series(points, now), 600, 101)
	if c.Max != 20 || c.Done != 26 || c.Failed != 5 || len(c.Bars) != 3 {
		t.Fatalf("chart max %d done %d failed %d bars %d; want 20, 26, 5, 3", c.Max, c.Done, c.Failed, len(c.Bars))
	}
	tall := c.Bars[1]
	if tall.DoneH+tall.FailH != 100 || tall.FailY != 1 || tall.DoneY != 26 {
		t.Errorf("tallest bar %+v: want it to fill the height (100) with failed on top", tall)
	}
	if c.Bars[0].X >= tall.X || tall.X >= c.Bars[2].X || c.Bars[2].X+c.Bars[2].W > 600 {
		t.Errorf("bars out of order or out of the box: %+v", c.Bars)
	}
	if tall.Title != "12:01 UTC: 15 done, 5 failed" {
		t.Errorf("title %q", tall.Title)
	}
	if e := newChart(series(nil, now), 600, 100); e.Max != 0 || len(e.Bars) != 0 || e.Bars == nil {
		t.Errorf("empty chart %+v: want no bars, as an empty list", e)
	}
}

// The day and month ranges bucket minutes and the store's hourly points
// into their bars, with tooltips that say the interval.
func TestChartRanges(t *testing.T) {
	now := time.Date(2026, 1, 31, 12, 40, 0, 0, time.UTC)
	day, month := rangeOf("24h"), rangeOf("30d")
	if rangeOf("bogus").Key != "1h" || day.bars() != 96 || month.bars() != 60 {
		t.Fatalf("ranges: bogus -> %q, day %d bars, month %d bars; want 1h, 96, 60", rangeOf("bogus").Key, day.bars(), month.bars())
	}
	points := []hopper.ThroughputPoint{
		{Minute: time.Date(2026, 1, 10, 3, 0, 0, 0, time.UTC), Span: time.Hour, Done: 50},    // an hour three weeks ago
		{Minute: time.Date(2026, 1, 31, 12, 31, 0, 0, time.UTC), Span: time.Minute, Done: 3}, // the current quarter hour
		{Minute: time.Date(2026, 1, 31, 12, 44, 0, 0, time.UTC), Span: time.Minute, Done: 2}, // same quarter
	}
	d := newChart(seriesIn(day, points, now), 720, 160)
	if d.Done != 5 || len(d.Bars) != 1 || d.Bars[0].Title != "12:30–12:45 UTC: 5 done, 0 failed" {
		t.Errorf("day chart: done %d, bars %+v; want the current quarter hour with 5", d.Done, d.Bars)
	}
	m := newChart(seriesIn(month, points, now), 720, 160)
	if m.Done != 55 || len(m.Bars) != 2 || m.Bars[0].Title != "Jan 10 00:00–12:00 UTC: 50 done, 0 failed" || m.YMid != 25 {
		t.Errorf("month chart: done %d, ymid %d, bars %+v; want the hour in its half day and today's 5", m.Done, m.YMid, m.Bars)
	}
}

func TestScheduleRow(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 30, 0, time.UTC)
	next := now.Add(30 * time.Second) // ListSchedules's Next
	base := hopper.ScheduleRecord{Name: "s", Spec: "@every 1m", Next: next, RegisteredNext: now.Add(-time.Hour)}
	cases := []struct {
		name     string
		last     time.Time
		spec     string
		paused   bool
		wantNext time.Time
		missed   bool
	}{
		{"ran on time", now.Add(-30 * time.Second), "@every 1m", false, next, false},
		{"stopped an hour ago", now.Add(-time.Hour), "@every 1m", false, next, true},
		{"never ran since registration", time.Time{}, "@every 1m", false, next, true},
		{"unknown spec, never ran: missed by the registered tick", time.Time{}, "every full moon", false, next, true},
		{"unknown spec, ran since the registered tick", now.Add(-time.Minute), "every full moon", false, next, false},
		{"paused stored schedule", now.Add(-time.Hour), "@every 1m", true, time.Time{}, false},
	}
	for _, c := range cases {
		s := base
		s.LastTick, s.Spec = c.last, c.spec
		if c.paused {
			s.Stored, s.Paused, s.Next = true, true, time.Time{}
		}
		row := scheduleRowOf(s, now)
		if !row.Next.Equal(c.wantNext) || row.Missed != c.missed {
			t.Errorf("%s: next %v missed %v; want %v, %v", c.name, row.Next, row.Missed, c.wantNext, c.missed)
		}
	}
}
