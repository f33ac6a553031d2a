package upgradetest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopperq/hopper/internal/upgradetest/evidence"
)

// figures are what the run showed, for the summary line.
type figures struct {
	lost, twice, unknown       int // succeeding jobs never run, run to success more than once, successes of no produced job
	retriedWrong, doomedWrong  int // retried jobs not failing exactly once, doomed jobs not failing exactly twice
	early, earlyTasks, overlap int // delayed jobs run early, tasks run before a dependency, group overlaps
	groupBreaks                int // groups not run in enqueue order 1..n
	ticks, tickDups, tickGaps  int // ticks run, ticks run more than once, ticks missing between the first and the last
}

// verify checks the final evidence and returns the figures and every
// broken promise, each with a few examples.
func (s *snapshot) verify() (f figures, problems []string) {
	report := func(n *int, what string, examples []string) {
		*n = len(examples)
		if len(examples) > 0 {
			slices.Sort(examples)
			problems = append(problems, fmt.Sprintf("%d %s, e.g. %s", len(examples), what, strings.Join(examples[:min(5, len(examples))], ", ")))
		}
	}
	expected := map[string]bool{}
	var lost []string
	for _, id := range s.succeeding() {
		expected[id] = true
		if s.ok[id] == 0 {
			lost = append(lost, id)
		}
	}
	var twice, unknown []string
	for id, n := range s.ok {
		if n > 1 {
			twice = append(twice, fmt.Sprintf("%s ran %d times", id, n))
		}
		if !expected[id] {
			unknown = append(unknown, id)
		}
	}
	report(&f.lost, "jobs lost (produced, never run to success)", lost)
	report(&f.twice, "jobs run to success more than once", twice)
	report(&f.unknown, "successes of no job expected to succeed", unknown)

	var retried, doomed []string
	for _, id := range s.produced[evidence.Retried] {
		if n := s.failed[id]; n != 1 {
			retried = append(retried, fmt.Sprintf("%s failed %d times", id, n))
		}
	}
	for _, id := range s.produced[evidence.Doomed] {
		if n := s.failed[id]; n != doomedAttempts {
			doomed = append(doomed, fmt.Sprintf("%s ran %d times", id, n))
		}
	}
	report(&f.retriedWrong, "retried jobs whose first attempt did not fail exactly once", retried)
	report(&f.doomedWrong, fmt.Sprintf("doomed jobs not run exactly %d times", doomedAttempts), doomed)

	report(&f.early, "delayed jobs run before their delay", keysOf(s.early))
	report(&f.earlyTasks, "workflow tasks run before a dependency succeeded", keysOf(s.earlyTask))
	report(&f.overlap, "groups capped at 1 with two jobs running at once", keysOf(s.overlap))

	size := map[string]int{}
	for _, id := range s.produced[evidence.Grouped] {
		size[groupOf(id)]++
	}
	var breaks []string
	for g, n := range size {
		want := make([]int, n)
		for i := range want {
			want[i] = i + 1
		}
		if !slices.Equal(s.groups[g], want) {
			breaks = append(breaks, fmt.Sprintf("%s ran %v, want 1..%d in order", g, abbreviate(s.groups[g]), n))
		}
	}
	report(&f.groupBreaks, "groups not run in enqueue order", breaks)

	ticks := slices.Sorted(func(yield func(int64) bool) {
		for k := range s.ticks {
			if !yield(k) {
				return
			}
		}
	})
	f.ticks = len(ticks)
	var dups, gaps []string
	for i, tick := range ticks {
		if n := s.ticks[tick]; n != 1 {
			dups = append(dups, fmt.Sprintf("tick %d ran %d times", tick, n))
		}
		if i > 0 && tick-ticks[i-1] != 1000 {
			gaps = append(gaps, fmt.Sprintf("%d ms between ticks %d and %d", tick-ticks[i-1], ticks[i-1], tick))
		}
	}
	report(&f.tickDups, "schedule ticks run more than once", dups)
	report(&f.tickGaps, "gaps between schedule ticks (a tick never enqueued)", gaps)
	if f.ticks < 2 {
		problems = append(problems, fmt.Sprintf("only %d schedule ticks ran", f.ticks))
	}
	return f, problems
}

func keysOf(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// abbreviate shortens a long sequence for a message.
func abbreviate(seq []int) string {
	if len(seq) <= 12 {
		return fmt.Sprint(seq)
	}
	return fmt.Sprintf("%v…%v (%d)", seq[:6], seq[len(seq)-6:], len(seq))
}
