package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestEventsUnknownQueueSaysSo: events of a queue the store does not know
// follows it all the same (its first job may come) and says on stderr,
// before "following", that no queue has that name in the Redis it reads,
// as jobs list does: a mistyped name, or a forgotten --redis, followed
// forever in silence, like a quiet queue. A known queue gets no such line.
func TestEventsUnknownQueueSaysSo(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		// Someone reads the queue's events (redisstore writes them while
		// someone does), then the seed makes its history.
		if _, _, _, err := c.store.(store.EventReader).ReadEvents(t.Context(), map[string]string{"default": hopper.FromNow}, 1, 0); err != nil {
			t.Fatal(err)
		}
		seed(t, c.store)
		r := c.run(t, "events", "--queue", "typo,default", "--from", "start", "--count", "1")
		wantCode(t, r, 0, "events of typo and default")
		notice := "hopper events: no queue named typo in the Redis at "
		line, rest, _ := strings.Cut(r.stderr, "\n")
		if !strings.HasPrefix(line, notice) || !strings.Contains(line, "(--redis)") || !strings.HasPrefix(rest, "following typo,default") {
			t.Errorf("events of typo and default: stderr %q, want a line starting %q naming --redis, then following", r.stderr, notice)
		}
		if strings.Count(r.stderr, "no queue named") != 1 {
			t.Errorf("events of typo and default: stderr %q, want one notice (default is known)", r.stderr)
		}
		if !strings.Contains(r.stdout, "enqueued") {
			t.Errorf("events of typo and default: stdout %q, want default's first event", r.stdout)
		}
	})
}
