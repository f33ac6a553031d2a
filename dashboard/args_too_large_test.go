package dashboard_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
	"github.com/vmihailenco/msgpack/v5"
)

// TestArgsTooLargeToShow: a job whose args are over what a page shows
// (256 KiB) has a job page and a list row of bounded size that say so and
// give its size, and no args form; smaller args show whole. A 100 MB
// job's page was 400 MB of HTML, and a 600 MB one ran the process out of
// memory.
func TestArgsTooLargeToShow(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		big, err := msgpack.Marshal(map[string]string{"blob": strings.Repeat("x", 2<<20)})
		if err != nil {
			t.Fatal(err)
		}
		small, err := msgpack.Marshal(map[string]string{"blob": strings.Repeat("y", 200<<10)})
		if err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour)
		if _, err := s.Enqueue(ctx, []*store.NewJob{
			{ID: "big", Queue: "default", Kind: "blob", Args: big, RunAt: later},
			{ID: "small", Queue: "default", Kind: "blob", Args: small, RunAt: later},
		}); err != nil {
			t.Fatal(err)
		}
		page := get(t, h, "/jobs/default/big").Body
		if len(page) > 64<<10 {
			t.Errorf("the page of a job of %d bytes of args is %d bytes, want it bounded", len(big), len(page))
		}
		wantContains(t, page, "the big job's page", "Too large to show here ("+num(len(big))+" bytes")
		if strings.Contains(page, `action="/jobs/default/big/args"`) {
			t.Error("the big job's page offers to edit its args")
		}
		list := get(t, h, "/queues/default/pending").Body
		if len(list) > 600<<10 {
			t.Errorf("the list of a big and a small job is %d bytes, want it bounded", len(list))
		}
		wantContains(t, list, "the list", "too large to show ("+num(len(big))+" bytes)")
		wantContains(t, get(t, h, "/jobs/default/small").Body, "the small job's page", strings.Repeat("y", 200<<10), `action="/jobs/default/small/args"`)
	})
}

// num writes n as the pages do, with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
