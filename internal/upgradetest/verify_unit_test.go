package upgradetest

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/upgradetest/evidence"
)

// cleanSnapshot is the evidence of a tiny run where every promise held.
func cleanSnapshot() *snapshot {
	return &snapshot{
		produced: map[string][]string{
			evidence.Plain:    {"p-000000"},
			evidence.Retried:  {"p-000012"},
			evidence.Doomed:   {"p-000014"},
			evidence.Grouped:  {"p-000015", "p-000018"},
			evidence.Task:     {"p-000019~a", "p-000019~z"},
			evidence.Workflow: {"p-000019"},
		},
		ok: map[string]int64{"p-000000": 1, "p-000012": 1, "p-000015": 1, "p-000018": 1,
			"p-000019~a": 1, "p-000019~z": 1},
		failed: map[string]int64{"p-000012": 1, "p-000014": doomedAttempts},
		ticks:  map[int64]int64{1000: 1, 2000: 1, 3000: 1},
		// 15 % 3 == 18 % 3 == 0: both in group p-g0, in order.
		groups: map[string][]int{"p-g0": {1, 2}},
	}
}

// TestVerifyFindsBrokenPromises checks that the checker of the rolling
// upgrade reports each kind of broken promise, and nothing on a clean run.
func TestVerifyFindsBrokenPromises(t *testing.T) {
	if f, problems := cleanSnapshot().verify(); len(problems) > 0 || f.ticks != 3 {
		t.Fatalf("clean run: %d ticks, problems %q", f.ticks, problems)
	}
	for _, tc := range []struct {
		name  string
		spoil func(s *snapshot)
		want  string
		count func(f figures) int
	}{
		{"lost", func(s *snapshot) { delete(s.ok, "p-000000") }, "1 jobs lost", func(f figures) int { return f.lost }},
		{"twice", func(s *snapshot) { s.ok["p-000019~z"] = 2 }, "run to success more than once", func(f figures) int { return f.twice }},
		{"doomed succeeded", func(s *snapshot) { s.ok["p-000014"] = 1 }, "successes of no job expected", func(f figures) int { return f.unknown }},
		{"retried twice", func(s *snapshot) { s.failed["p-000012"] = 2 }, "did not fail exactly once", func(f figures) int { return f.retriedWrong }},
		{"doomed thrice", func(s *snapshot) { s.failed["p-000014"] = 3 }, "doomed jobs not run exactly", func(f figures) int { return f.doomedWrong }},
		{"early", func(s *snapshot) { s.early = map[string]int64{"p-000000": 40} }, "run before their delay", func(f figures) int { return f.early }},
		{"task early", func(s *snapshot) { s.earlyTask = map[string]int64{"p-000019~z": 1} }, "before a dependency", func(f figures) int { return f.earlyTasks }},
		{"overlap", func(s *snapshot) { s.overlap = map[string]int64{"p-g0": 1} }, "two jobs running at once", func(f figures) int { return f.overlap }},
		{"group order", func(s *snapshot) { s.groups["p-g0"] = []int{2, 1} }, "not run in enqueue order", func(f figures) int { return f.groupBreaks }},
		{"group lost", func(s *snapshot) { s.groups["p-g0"] = []int{1} }, "not run in enqueue order", func(f figures) int { return f.groupBreaks }},
		{"tick twice", func(s *snapshot) { s.ticks[2000] = 2 }, "ticks run more than once", func(f figures) int { return f.tickDups }},
		{"tick gap", func(s *snapshot) { delete(s.ticks, 2000) }, "gaps between schedule ticks", func(f figures) int { return f.tickGaps }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := cleanSnapshot()
			tc.spoil(s)
			f, problems := s.verify()
			if len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
				t.Fatalf("problems %q, want one with %q", problems, tc.want)
			}
			if n := tc.count(f); n != 1 {
				t.Fatalf("figure %d, want 1", n)
			}
		})
	}
}

func TestGroupOf(t *testing.T) {
	for id, want := range map[string]string{"old-p1-000015": "old-p1-g0", "new-p1-000017": "new-p1-g2", "p-000001": "p-g1"} {
		if got := groupOf(id); got != want {
			t.Errorf("groupOf(%q) = %q, want %q", id, got, want)
		}
	}
}
