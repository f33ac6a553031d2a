package dashboard

import (
	"fmt"
	"math"
	"time"

	"github.com/hopperq/hopper"
)

// chartRange is a window of throughput a chart shows, a bar per Step.
type chartRange struct {
	Key   string // the ?range= value
	Span  time.Duration
	Step  time.Duration
	Label string // "last hour"
	Per   string // what a bar covers: "min", "15 min", "12 h"
	From  string // the axis label at the left end: "60 min ago"
	Ago   string // the axis label halfway back: "30 min ago"
}

// chartRanges are the windows of the overview's chart: a bar a minute for
// the last hour, a quarter hour for the last day (the store keeps minutes
// for a day), twelve hours for the last 30 days (from the hourly
// counters kept 30 days). The first is the default and the sparklines'.
var chartRanges = []chartRange{
	{Key: "1h", Span: time.Hour, Step: time.Minute, Label: "last hour", Per: "min", From: "60 min ago", Ago: "30 min ago"},
	{Key: "24h", Span: 24 * time.Hour, Step: 15 * time.Minute, Label: "last 24 hours", Per: "15 min", From: "24 h ago", Ago: "12 h ago"},
	{Key: "30d", Span: 30 * 24 * time.Hour, Step: 12 * time.Hour, Label: "last 30 days", Per: "12 h", From: "30 days ago", Ago: "15 days ago"},
}

// rangeOf returns the chart range named key, the first for anything else.
func rangeOf(key string) chartRange {
	for _, r := range chartRanges {
		if r.Key == key {
			return r
		}
	}
	return chartRanges[0]
}

// bars is how many bars the range draws.
func (r chartRange) bars() int { return int(r.Span / r.Step) }

// Chart sizes, in SVG user units: the overview's large chart and the
// sparkline of each queue's row.
const (
	bigChartW, bigChartH     = 720, 160
	sparkChartW, sparkChartH = 180, 32
)

// chart is a throughput bar chart laid out on the server: the template
// draws it as SVG for the first paint and app.js redraws it from the same
// numbers in the live JSON, so both draw alike and no JavaScript computes
// a layout.
type chart struct {
	W      int        `json:"w"`
	H      int        `json:"h"`
	Max    int64      `json:"max"`    // the tallest minute (done plus failed)
	Done   int64      `json:"done"`   // acks in the window
	Failed int64      `json:"failed"` // failed attempts in the window
	Bars   []chartBar `json:"bars"`   // intervals with anything, oldest first
	// YMid is the value at half height, for the axis (Max is the top).
	YMid int64 `json:"ymid"`
}

// chartBar is one minute: done stacked under failed.
type chartBar struct {
	X     float64 `json:"x"`
	W     float64 `json:"w"`
	DoneY float64 `json:"dy"`
	DoneH float64 `json:"dh"`
	FailY float64 `json:"fy"`
	FailH float64 `json:"fh"`
	Title string  `json:"t"`
}

// span is the interval of one bar: from start, for step.
type span struct {
	start time.Time
	step  time.Duration
}

// spans returns the bars of r's window ending with now's, and its start.
func spans(r chartRange, now time.Time) (time.Time, []span) {
	start := rangeStart(r, now)
	out := make([]span, r.bars())
	for i := range out {
		out[i] = span{start.Add(time.Duration(i) * r.Step), r.Step}
	}
	return start, out
}

// minuteCounts is one bar of the window: a minute, or a Step of a longer
// range.
type minuteCounts struct {
	span
	done, failed int64
}

// windowStart returns the first minute of the hour-long window ending with
// now's.
func windowStart(now time.Time) time.Time { return rangeStart(chartRanges[0], now) }

// rangeStart returns the start of the first bar of r's window ending with
// the bar holding now.
func rangeStart(r chartRange, now time.Time) time.Time {
	return now.Truncate(r.Step).Add(-time.Duration(r.bars()-1) * r.Step)
}

// series spreads points over the last hour's minutes (seriesIn).
func series(points []hopper.ThroughputPoint, now time.Time) []minuteCounts {
	return seriesIn(chartRanges[0], points, now)
}

// seriesIn spreads points over r's bars ending with now's. Points outside
// the window are dropped, but one a bar ahead (the store's clock is a
// little ahead of ours) counts in the last bar.
func seriesIn(r chartRange, points []hopper.ThroughputPoint, now time.Time) []minuteCounts {
	start, sp := spans(r, now)
	n := len(sp)
	out := make([]minuteCounts, n)
	for i := range out {
		out[i].span = sp[i]
	}
	for _, p := range points {
		if i, ok := barOf(r, start, n, p.Minute); ok {
			out[i].done += p.Done
			out[i].failed += p.Failed
		}
	}
	return out
}

// barOf returns the bar of r's window (n bars from start) holding t. A
// time one bar ahead counts in the last bar (the store's clock is a little
// ahead of ours); ok is false outside the window.
func barOf(r chartRange, start time.Time, n int, t time.Time) (i int, ok bool) {
	off := t.Sub(start)
	if off < 0 {
		return 0, false
	}
	i = int(off / r.Step)
	if i == n {
		i--
	}
	return i, i < n
}

// addSeries adds b into a, minute by minute (totals over queues).
func addSeries(a, b []minuteCounts) []minuteCounts {
	if a == nil {
		return append([]minuteCounts(nil), b...)
	}
	for i := range a {
		a[i].done += b[i].done
		a[i].failed += b[i].failed
	}
	return a
}

// newChart lays out s in a w by h box.
func newChart(s []minuteCounts, w, h int) *chart {
	c := &chart{W: w, H: h, Bars: []chartBar{}}
	for _, m := range s {
		c.Max = max(c.Max, m.done+m.failed)
		c.Done += m.done
		c.Failed += m.failed
	}
	c.YMid = c.Max / 2
	if c.Max == 0 {
		return c
	}
	g := c.grid(len(s))
	for i, m := range s {
		if m.done+m.failed == 0 {
			continue
		}
		doneH := barHeight(m.done, g.scale)
		failH := barHeight(m.failed, g.scale)
		b := chartBar{
			X:     g.x(i),
			W:     g.w(),
			DoneY: round2(float64(h) - doneH),
			DoneH: round2(doneH),
			FailH: round2(failH),
			Title: fmt.Sprintf("%s UTC: %s done, %s failed", barTime(m.span), formatCount(m.done), formatCount(m.failed)),
		}
		b.FailY = round2(float64(h) - doneH - failH)
		c.Bars = append(c.Bars, b)
	}
	return c
}

// barGrid is where n bars go across a chart: a slot each, a gap between
// them, and the height of one unit of the chart's Max.
type barGrid struct{ slot, gap, scale float64 }

// grid returns the grid of n bars across c (c.Max above zero).
func (c *chart) grid(n int) barGrid {
	slot := float64(c.W) / float64(n)
	return barGrid{slot: slot, gap: math.Min(2, slot*0.2), scale: float64(c.H-1) / float64(c.Max)}
}

// x is the left edge of bar i; w the width of every bar.
func (g barGrid) x(i int) float64 { return round2(float64(i)*g.slot + g.gap/2) }
func (g barGrid) w() float64      { return round2(g.slot - g.gap) }

// barHeight scales n, keeping any non-zero count at least one unit tall.
func barHeight(n int64, scale float64) float64 {
	if n == 0 {
		return 0
	}
	return math.Max(1, float64(n)*scale)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// barTime names the interval of bar m for its tooltip: "15:04" for a
// minute, "15:00–15:15" for a quarter hour, "Jan 2 00:00–12:00" for
// longer ones.
func barTime(m span) string {
	t := m.start.UTC()
	switch {
	case m.step <= time.Minute:
		return t.Format("15:04")
	case m.step < 2*time.Hour:
		return t.Format("15:04") + "–" + t.Add(m.step).Format("15:04")
	}
	return t.Format("Jan 2 15:04") + "–" + t.Add(m.step).Format("15:04")
}

// samplesIn spreads the sampled values of points (pick: their ready count,
// or latency in ms) over r's bars ending with now's, the largest sample of
// each bar; a bar without a sample has has false.
func samplesIn(r chartRange, points []hopper.ThroughputPoint, now time.Time, pick func(hopper.ThroughputPoint) int64) []sampleBar {
	start, sp := spans(r, now)
	n := len(sp)
	out := make([]sampleBar, n)
	for i := range out {
		out[i].span = sp[i]
	}
	for _, p := range points {
		i, ok := barOf(r, start, n, p.Minute)
		if !p.Sampled || !ok {
			continue
		}
		if v := pick(p); !out[i].has || v > out[i].v {
			out[i].v, out[i].has = v, true
		}
	}
	return out
}

// sampleBar is one bar of a chart of samples.
type sampleBar struct {
	span
	v   int64
	has bool
}

// newSampleChart lays out samples in a w by h box, each bar titled with
// label of its value.
func newSampleChart(s []sampleBar, w, h int, label func(int64) string) *chart {
	c := &chart{W: w, H: h, Bars: []chartBar{}}
	for _, b := range s {
		c.Max = max(c.Max, b.v)
	}
	c.YMid = c.Max / 2
	if c.Max == 0 {
		return c
	}
	g := c.grid(len(s))
	for i, b := range s {
		if !b.has || b.v == 0 {
			continue
		}
		bh := barHeight(b.v, g.scale)
		c.Bars = append(c.Bars, chartBar{
			X: g.x(i), W: g.w(),
			DoneY: round2(float64(h) - bh), DoneH: round2(bh),
			Title: fmt.Sprintf("%s UTC: %s", barTime(b.span), label(b.v)),
		})
	}
	return c
}
