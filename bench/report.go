package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeReport writes the markdown report: a header, one table per
// workload table, and the failures.
func writeReport(w io.Writer, m meta, cfg *config, wls []workload, results []runResult) {
	writeHeader(w, m, cfg)
	for _, wl := range wls {
		var runs []runResult
		for _, r := range results {
			if r.Workload == wl.id {
				runs = append(runs, r)
			}
		}
		for _, t := range wl.tables {
			writeTable(w, t, cfg.systems, runs)
		}
	}
	var failed []runResult
	for _, r := range results {
		if r.Error != "" {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "## Failures\n\n")
		for _, r := range failed {
			fmt.Fprintf(w, "- **FAILED** %s, %s, rep %d: %s\n", r.Workload, r.System, r.Rep, r.Error)
		}
		fmt.Fprintln(w)
	}
}

// writeHeader writes the title, the environment and how to read the
// tables.
func writeHeader(w io.Writer, m meta, cfg *config) {
	redisHow := "started by the benchmark, no persistence"
	if !m.RedisStarted {
		redisHow = "existing server given with -redis"
	}
	var mods []string
	for _, name := range []string{"hopper", "asynq", "go-redis"} {
		if v, ok := m.Modules[name]; ok {
			mods = append(mods, name+" "+v)
		}
	}
	fmt.Fprintf(w, "# hopper benchmark\n\n")
	fmt.Fprintf(w, "- %s\n", m.Date.Format(time.RFC3339))
	fmt.Fprintf(w, "- Go %s %s/%s, GOMAXPROCS %d, %d CPUs\n", m.GoVersion, m.OS, m.Arch, m.GOMAXPROCS, m.NumCPU)
	fmt.Fprintf(w, "- Redis %s on %s (%s)\n", m.RedisVersion, m.RedisAddr, redisHow)
	if len(mods) > 0 {
		fmt.Fprintf(w, "- %s\n", strings.Join(mods, ", "))
	}
	fmt.Fprintf(w, "- systems %s; %d rep(s) each, taking turns; FLUSHALL before every run; N = %s; concurrency %d; timeout %s\n",
		strings.Join(cfg.systems, ", "), cfg.reps, num(cfg.n), cfg.concurrency, cfg.timeout)
	fmt.Fprintf(w, "\nEach cell is the median over the reps, with the range (min–max) when the reps differ. ↑ higher is better, ↓ lower is better.")
	if hasRatio(cfg.systems) {
		fmt.Fprintf(w, " The last column is the ratio of the medians, %s / %s.", subject, baseline)
	}
	fmt.Fprintf(w, " Clients, workers and Redis share this machine's CPUs: compare ratios from one run, not absolute numbers across machines.\n\n")
}

// hasRatio reports whether the tables get a ratio column: both the subject
// and the baseline ran.
func hasRatio(names []string) bool {
	return slices.Contains(names, subject) && slices.Contains(names, baseline)
}

// writeTable writes one table: a row per metric, a column per system and
// the ratio column.
func writeTable(w io.Writer, t table, names []string, runs []runResult) {
	fmt.Fprintf(w, "## %s\n\n%s\n\n", t.title, t.about)
	ratio := hasRatio(names)
	head := append([]string{"metric"}, names...)
	align := []string{"---"}
	for range names {
		align = append(align, "---:")
	}
	if ratio {
		head = append(head, subject+" / "+baseline)
		align = append(align, "---:")
	}
	fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
	for _, mt := range t.metrics {
		row := []string{mt.label + arrow(mt.better)}
		for _, name := range names {
			row = append(row, cell(mt, runsOf(runs, name)))
		}
		if ratio {
			row = append(row, ratioCell(mt, runsOf(runs, subject), runsOf(runs, baseline)))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

// runsOf returns the runs of one system.
func runsOf(runs []runResult, name string) []runResult {
	var out []runResult
	for _, r := range runs {
		if r.System == name {
			out = append(out, r)
		}
	}
	return out
}

// arrow marks the direction a metric improves in.
func arrow(d direction) string {
	switch d {
	case higherBetter:
		return " ↑"
	case lowerBetter:
		return " ↓"
	}
	return ""
}

// values returns a metric's values from the successful runs.
func values(mt metric, runs []runResult) []float64 {
	var out []float64
	for _, r := range runs {
		if v, ok := r.Metrics[mt.key]; ok && r.Error == "" && !r.NotApplicable {
			out = append(out, v)
		}
	}
	return out
}

// cell renders one system's runs for one metric: the median and the range
// (left out when every run shows the same value), n/a, FAILED, or a dash
// when nothing was measured.
func cell(mt metric, runs []runResult) string {
	failed, na := 0, 0
	for _, r := range runs {
		switch {
		case r.Error != "":
			failed++
		case r.NotApplicable:
			na++
		}
	}
	switch {
	case len(runs) == 0:
		return "–"
	case na == len(runs):
		return "n/a"
	case failed == len(runs):
		return "**FAILED**"
	}
	vs := values(mt, runs)
	s := "–"
	if len(vs) > 0 {
		s = formatNumber(median(vs), mt.decimals)
		lo, hi := minMax(vs)
		if l, h := formatNumber(lo, mt.decimals), formatNumber(hi, mt.decimals); l != h {
			s += fmt.Sprintf(" (%s–%s)", l, h)
		}
	}
	if failed > 0 {
		s += fmt.Sprintf(", **%d FAILED**", failed)
	}
	return s
}

// ratioCell renders subject median / baseline median, or a dash when the
// ratio is meaningless or not measured.
func ratioCell(mt metric, subj, base []runResult) string {
	if mt.noRatio {
		return "–"
	}
	a, b := median(values(mt, subj)), median(values(mt, base))
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return "–"
	}
	return formatRatio(a/b) + "×"
}

// formatRatio renders a ratio with two decimals, or two significant digits
// when it is below 0.1, so that a small ratio does not show as 0.00.
func formatRatio(r float64) string {
	if math.Abs(r) >= 0.1 {
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'g', 2, 64)
}

// formatNumber renders v with the given decimals and thousands separators.
func formatNumber(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "–"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// num renders an integer with thousands separators.
func num(n int) string { return formatNumber(float64(n), 0) }
