package main

import (
	"encoding/json"
	"regexp"
	"testing"
)

func TestStats(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seed(t, c.store)
		r := c.run(t, "stats")
		wantCode(t, r, 0, "stats")
		// default: 1 pending, 1 ready, 1 garbage; one failed attempt this hour.
		if !regexp.MustCompile(`default\s+-\s+1\s+1\s+0\s+0\s+1\s+0\s+\S+\s+0\s+1`).MatchString(r.stdout) {
			t.Errorf("stats table lacks the default row:\n%s", r.stdout)
		}
		wantOut(t, r.stdout, "stats", "QUEUE", "PENDING", "GARBAGE", "LATENCY", "TOTAL")

		r = c.run(t, "stats", "--json")
		wantCode(t, r, 0, "stats --json")
		var rows []struct {
			Queue  string
			Paused bool
			Counts map[string]int64
			Failed int64 `json:"failed_last_hour"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
			t.Fatalf("stats --json: %v\n%s", err, r.stdout)
		}
		if len(rows) != 1 || rows[0].Queue != "default" || rows[0].Counts["garbage"] != 1 || rows[0].Counts["ready"] != 1 || rows[0].Failed != 1 {
			t.Errorf("stats --json = %+v", rows)
		}
	})
}

func TestStatsEmpty(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		r := c.run(t, "stats")
		wantCode(t, r, 0, "stats")
		wantOut(t, r.stdout, "stats", "no queues")
		// Which Redis and prefix were read: a wrong --redis-prefix looked
		// like an empty store.
		wantOut(t, r.stderr, "stats of an empty store", "no queues under the key prefix", "(--redis-prefix) in the Redis at", "(--redis)")
	})
}

// TestStatsEmptyJSON: stats --json of a prefix with no queues prints [] on
// stdout, still JSON, and the same hint as the table on stderr. It
// printed [] alone: a mistyped --redis-prefix looked like an empty store.
func TestStatsEmptyJSON(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		r := c.run(t, "stats", "--json")
		wantCode(t, r, 0, "stats --json")
		var rows []any
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || rows == nil || len(rows) != 0 {
			t.Errorf("stats --json of an empty store: stdout %q (%v), want []", r.stdout, err)
		}
		wantOut(t, r.stderr, "stats --json of an empty store", "hopper stats: no queues under the key prefix", "(--redis-prefix) in the Redis at", "(--redis)")
	})
}
