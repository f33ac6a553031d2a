package dashboard

import (
	"fmt"
	"math"
	"time"

	"github.com/hopperq/hopper"
)

// chartMinutes is the throughput window: the last hour, one bar a minute.
const chartMinutes = 60

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
	Bars   []chartBar `json:"bars"`   // minutes with anything, oldest first
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

// minuteCounts is one minute of the window.
type minuteCounts struct {
	start        time.Time
	done, failed int64
}

// windowStart returns the first minute of the window ending with now's.
func windowStart(now time.Time) time.Time {
	return now.Truncate(time.Minute).Add(-(chartMinutes - 1) * time.Minute)
}

// series spreads points over the window's minutes. Points outside it are
// dropped, but one a minute ahead (the store's clock is a little ahead of
// ours) counts in the last minute.
func series(points []hopper.ThroughputPoint, now time.Time) []minuteCounts {
	start := windowStart(now)
	out := make([]minuteCounts, chartMinutes)
	for i := range out {
		out[i].start = start.Add(time.Duration(i) * time.Minute)
	}
	for _, p := range points {
		off := p.Minute.Sub(start)
		if off < 0 {
			continue
		}
		i := int(off / time.Minute)
		if i == chartMinutes {
			i--
		}
		if i >= chartMinutes {
			continue
		}
		out[i].done += p.Done
		out[i].failed += p.Failed
	}
	return out
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
	if c.Max == 0 {
		return c
	}
	slot := float64(w) / float64(len(s))
	gap := math.Min(2, slot*0.2)
	scale := float64(h-1) / float64(c.Max)
	for i, m := range s {
		if m.done+m.failed == 0 {
			continue
		}
		doneH := barHeight(m.done, scale)
		failH := barHeight(m.failed, scale)
		b := chartBar{
			X:     round2(float64(i)*slot + gap/2),
			W:     round2(slot - gap),
			DoneY: round2(float64(h) - doneH),
			DoneH: round2(doneH),
			FailH: round2(failH),
			Title: fmt.Sprintf("%s UTC: %s done, %s failed", m.start.UTC().Format("15:04"), formatCount(m.done), formatCount(m.failed)),
		}
		b.FailY = round2(float64(h) - doneH - failH)
		c.Bars = append(c.Bars, b)
	}
	return c
}

// barHeight scales n, keeping any non-zero count at least one unit tall.
func barHeight(n int64, scale float64) float64 {
	if n == 0 {
		return 0
	}
	return math.Max(1, float64(n)*scale)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
