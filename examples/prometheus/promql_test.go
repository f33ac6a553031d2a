package main

import (
	"slices"
	"strings"
	"testing"
)

// promqlKeywords are the PromQL words that are neither metrics nor
// followed by a parenthesis that makes them a function call.
var promqlKeywords = []string{
	"by", "without", "on", "ignoring", "group_left", "group_right",
	"and", "or", "unless", "bool", "offset", "inf", "nan", "atan2",
	// aggregations, which may come before their by/without clause and
	// their parenthesis: sum by (q) (x)
	"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
	"count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio",
}

// labelListWords are followed by a parenthesised list of label names.
var labelListWords = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}

// metricNames returns the metric names a PromQL expression selects, in
// order of first appearance: the identifiers that are not functions (an
// identifier followed by "("), keywords, label names (inside {...} or the
// list after by, without, on, ignoring, group_left, group_right), strings,
// numbers or durations (inside [...] or after offset).
func metricNames(expr string) []string {
	var names []string
	i := 0
	skipSpace := func(j int) int {
		for j < len(expr) && strings.ContainsRune(" \t\r\n", rune(expr[j])) {
			j++
		}
		return j
	}
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(expr, i)
		case c == '{':
			i = skipTo(expr, i, '}')
		case c == '[':
			i = skipTo(expr, i, ']')
		case c == '#': // a comment runs to the end of the line
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case isDigit(c) || c == '.' && i+1 < len(expr) && isDigit(expr[i+1]):
			for i < len(expr) && (isIdent(expr[i]) || expr[i] == '.') {
				i++
			}
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdent(expr[j]) {
				j++
			}
			word := expr[i:j]
			next := skipSpace(j)
			lower := strings.ToLower(word)
			switch {
			case slices.Contains(labelListWords, lower):
				if next < len(expr) && expr[next] == '(' {
					j = skipTo(expr, next, ')')
				}
			case slices.Contains(promqlKeywords, lower):
			case next < len(expr) && expr[next] == '(':
				// a function or an aggregation: its arguments are scanned next
			default:
				if !slices.Contains(names, word) {
					names = append(names, word)
				}
			}
			i = j
		default:
			i++
		}
	}
	return names
}

// skipString returns the index after the string literal starting at i.
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			return j + 1
		}
	}
	return len(s)
}

// skipTo returns the index after the first close at or after i that is
// outside a string literal.
func skipTo(s string, i int, close byte) int {
	for j := i + 1; j < len(s); {
		switch s[j] {
		case '"', '\'', '`':
			j = skipString(s, j)
		case close:
			return j + 1
		default:
			j++
		}
	}
	return len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
func isIdent(c byte) bool { return isIdentStart(c) || isDigit(c) }

func TestMetricNames(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`rate(foo_total{a="b", c=~"x(y)"}[5m])`, []string{"foo_total"}},
		{`histogram_quantile(0.95, sum by (le, q) (rate(d_seconds_bucket{q=~"$queue"}[$__rate_interval])))`, []string{"d_seconds_bucket"}},
		{`sum(rate(x_total[1m])) by (job) / ignoring(le) group_left (a) y offset 5m > 0.1`, []string{"x_total", "y"}},
		{`a == 0 and on (q) max by (q) (b{s="ready"}) > 0 unless c`, []string{"a", "b", "c"}},
		{`max(hopper_queue_latency_secnds) > 1e3 # comment names_nothing`, []string{"hopper_queue_latency_secnds"}},
	} {
		if got := metricNames(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("metricNames(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}
