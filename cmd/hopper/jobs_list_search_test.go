package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestJobsListSearchQuotedText: jobs list --search finds text as it reads
// inside a string value, quotes and all, and text as it reads in the JSON;
// a redacted value is never found.
func TestJobsListSearchQuotedText(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		client := hopper.NewClient(c.store, nil)
		enqueue := func(a emailArgs) string {
			info, err := hopper.Enqueue(t.Context(), client, a, nil)
			if err != nil {
				t.Fatal(err)
			}
			return info.ID
		}
		quoted := enqueue(emailArgs{To: `say "bob"`})
		plain := enqueue(emailArgs{To: "bob"})
		secret := enqueue(emailArgs{To: "carol", Password: `say "bob" hunter2`})
		found := func(needle string, more ...string) []string {
			t.Helper()
			r := c.run(t, append([]string{"jobs", "list", "--search", needle, "--json"}, more...)...)
			wantCode(t, r, 0, "jobs list --search "+needle)
			var ids []string
			for line := range strings.Lines(r.stdout) {
				var j struct{ ID string }
				if err := json.Unmarshal([]byte(line), &j); err != nil {
					t.Fatalf("jobs list --search %q --json: %v\n%s", needle, err, r.stdout)
				}
				ids = append(ids, j.ID)
			}
			slices.Sort(ids)
			return ids
		}
		sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
		for _, tc := range []struct {
			needle string
			want   []string
		}{
			{`say "bob"`, sorted(quoted)},    // as the value reads; its JSON reads say \"bob\"
			{`SAY "BOB"`, sorted(quoted)},    // any case
			{`say \"bob\"`, sorted(quoted)},  // as its JSON reads
			{`"bob"`, sorted(quoted, plain)}, // in the value, and in the JSON "to":"bob"
			{"hunter2", nil},                 // redacted
			{`say "bob" hunter2`, nil},       // the whole redacted value
			{"bob", sorted(quoted, plain)},   // a hint the store may use
			{"carol", sorted(secret)},        // another
		} {
			if got := found(tc.needle); !slices.Equal(got, tc.want) {
				t.Errorf("jobs list --search %q found %v, want %v", tc.needle, got, tc.want)
			}
		}
		// --no-redact shows the secret, and the search finds it.
		if got := found("hunter2", "--no-redact"); !slices.Equal(got, []string{secret}) {
			t.Errorf("jobs list --search hunter2 --no-redact found %v, want %v", got, []string{secret})
		}
	})
}
