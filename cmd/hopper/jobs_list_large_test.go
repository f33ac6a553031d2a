package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/store"
)

// TestJobsListLargeArgs: jobs list gives the size of args too large to
// list (over 256 KiB) instead of decoding them for a 60-character column:
// six jobs of 100 MB took 13 s and 1.9 GB to list. Smaller args show as
// before.
func TestJobsListLargeArgs(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		big, err := msgpack.Marshal(map[string]string{"blob": strings.Repeat("x", 1<<20)})
		if err != nil {
			t.Fatal(err)
		}
		small, err := msgpack.Marshal(map[string]string{"to": "ada@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.store.Enqueue(t.Context(), []*store.NewJob{
			{ID: "big", Queue: "blobs", Kind: "blob", Args: big},
			{ID: "small", Queue: "blobs", Kind: "blob", Args: small},
		}); err != nil {
			t.Fatal(err)
		}
		r := c.run(t, "jobs", "list", "--queue", "blobs")
		wantCode(t, r, 0, "list")
		wantOut(t, r.stdout, "list", "("+strconv.Itoa(len(big))+" bytes: hopper jobs show)", `{"to":"ada@example.com"}`)
		if strings.Contains(r.stdout, "xxxx") {
			t.Errorf("the list shows the big job's args:\n%.300s", r.stdout)
		}
	})
}
