package dashboard

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hopperq/hopper"
)

// formatCount writes n with thousands separators: 1,234,567.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// formatDuration writes d briefly, to two units at most: 340ms, 4.2s, 12s,
// 5m 3s, 2h 5m, 3d 4h.
func formatDuration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}

// shortDuration writes d exactly, as time.ParseDuration reads it, without
// zero tails: 24h, 1h30m, 1s, 1.5s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// formatLatency writes a queue's latency: "—" when nothing waits.
func formatLatency(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return formatDuration(d)
}

// ago writes t relative to now: "5m 3s ago", "in 12s", "now", in years
// and days from a year on ("in 7973y 364d"); "—" for the zero time.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	switch {
	case t.Sub(now) < time.Second && now.Sub(t) < time.Second:
		return "now"
	case t.After(now):
		return "in " + spanText(now, t)
	}
	return spanText(t, now) + " ago"
}

// spanText writes the time from a to b (a not after b) as formatDuration
// does, in years and days from a year on: a Duration holds 292 years at
// most, and due times run to the year 9999 (now.Sub(t) saturated, and
// its negation overflowed into "in -9223372036854ms").
func spanText(a, b time.Time) string {
	years, rest := yearsBetween(a, b)
	if years == 0 {
		return formatDuration(rest)
	}
	return fmt.Sprintf("%dy %dd", years, int(rest/(24*time.Hour)))
}

// yearsBetween returns the whole calendar years from a to b (a not after
// b) and the time left over, less than a year.
func yearsBetween(a, b time.Time) (int, time.Duration) {
	a, b = a.UTC(), b.UTC()
	years := b.Year() - a.Year()
	if years > 0 && a.AddDate(years, 0, 0).After(b) {
		years--
	}
	return years, b.Sub(a.AddDate(years, 0, 0))
}

// absTime writes t in UTC to the millisecond; "" for the zero time.
func absTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05.000 UTC")
}

// trimTo cuts s to at most n bytes, at a character's boundary, and
// replaces bytes that are not UTF-8 with U+FFFD: a search would look for,
// and its page show, a broken character.
func trimTo(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncate shortens s to at most n runes, ending it with "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// stateDescriptions say what each state means, for page text and tooltips.
var stateDescriptions = map[hopper.JobState]string{
	hopper.StatePending: "Waiting for their run time (delayed or snoozed). Elsewhere: scheduled.",
	hopper.StateReady:   "Due and waiting for a worker, first in first out. Elsewhere: available, waiting.",
	hopper.StateUnack:   "Running: claimed by a worker under a lease. Elsewhere: active, running.",
	hopper.StateRetry:   "Failed, waiting for their backoff before the next attempt. Elsewhere: retryable.",
	hopper.StateGarbage: "Dead: retries used up, permanent failure, cancelled or undecodable. Kept for inspection until collected. Elsewhere: dead, archived, discarded.",
	hopper.StateDone:    "Completed and kept for their retention. Elsewhere: completed.",
}

// canRequeue, canDelete and canCancel are the rules of JobState, as the
// Inspector applies them, for templates and actions.
func canRequeue(st hopper.JobState) bool { return st.Requeueable() }
func canDelete(st hopper.JobState) bool  { return st.Deletable() }
func canCancel(st hopper.JobState) bool  { return st.Cancellable() }

// retryLabel names the requeue action for jobs in st.
func retryLabel(st hopper.JobState) string {
	switch st {
	case hopper.StateGarbage:
		return "Requeue"
	case hopper.StateDone:
		return "Run again"
	}
	return "Run now"
}

// listTime is the time a list of jobs in st shows, and its column name.
func listTime(st hopper.JobState, j *hopper.JobRecord) (string, time.Time) {
	switch st {
	case hopper.StatePending:
		return "Due", j.RunAt
	case hopper.StateRetry:
		return "Next attempt", j.RunAt
	case hopper.StateUnack:
		return "Started", j.AttemptedAt
	case hopper.StateGarbage:
		return "Died", j.FinishedAt
	case hopper.StateDone:
		return "Finished", j.FinishedAt
	}
	return "Enqueued", j.EnqueuedAt
}
