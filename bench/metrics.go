package main

import "math"

// direction says which way a metric improves; the report marks it.
type direction int

// The directions a metric can improve in.
const (
	higherBetter direction = iota // throughput
	lowerBetter                   // latency, cost
	neutral                       // context, not a score
)

// metric describes one reported number: its key in the run's metrics, its
// label in the table and how to show it.
type metric struct {
	key      string
	label    string
	better   direction
	decimals int  // digits after the decimal point in the table
	noRatio  bool // a ratio means nothing (counts that are mostly 0, signed values)
}

// table is one markdown table of the report, drawn from the runs of one
// workload.
type table struct {
	title   string
	about   string // one paragraph under the title
	metrics []metric
}

// metrics is what one run measured, by metric key. Keys that were not
// measured are absent (JSON cannot carry NaN).
type metrics map[string]float64

// set stores v under key unless it is NaN or infinite.
func (m metrics) set(key string, v float64) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		m[key] = v
	}
}
