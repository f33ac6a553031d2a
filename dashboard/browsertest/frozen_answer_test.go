package browsertest_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// holdAtWorkers is a Redis store whose next ListWorkers, once armed, says
// so on reached and waits for resume before it reads Redis. The workers
// registry is the last read of a running workflow's page, and one the page
// does without when it fails (unserved.go): a refresh held there has read
// the workflow already, and is answered 200 whatever Redis does next.
type holdAtWorkers struct {
	*redisstore.Store
	armed   atomic.Bool
	reached chan struct{}
	resume  chan struct{}
}

func (s *holdAtWorkers) ListWorkers(ctx context.Context) ([]store.WorkerInfo, error) {
	if s.armed.CompareAndSwap(true, false) {
		s.reached <- struct{}{}
		<-s.resume
	}
	return s.Store.ListWorkers(ctx)
}

// A refresh sent before Redis froze but answered after the page turned
// stale does not make the page live again: its answer says the store
// answered after the refresh was sent, not that it answers now. This is
// how TestLiveFrozenRedis once saw a running workflow's page say live
// while Redis was frozen (the freeze fell between the refresh's read of
// the workflow and its read of the workers registry); here the refresh is
// held at that point until the page says stale.
func TestLiveLateAnswerStaysStale(t *testing.T) {
	browser := startBrowser(t)
	srv := redistest.Start(t, redistest.Private())
	// Reads of a frozen Redis fail after a second, without retries.
	rdb := srv.Client(t, func(o *redis.Options) {
		o.ReadTimeout = time.Second
		o.MaxRetries = -1
	})
	st := &holdAtWorkers{Store: redisstore.New(rdb, nil), reached: make(chan struct{}, 1), resume: make(chan struct{})}
	wf := dashtest.SeedWorkflows(t, st)
	web := httptest.NewServer(liveDashboard(st))
	t.Cleanup(web.Close)
	var once sync.Once
	resume := func() { once.Do(func() { close(st.resume) }) }
	t.Cleanup(resume) // before web.Close, which waits for the held refresh
	s := &site{srv: web, st: st}

	tab := newTab(t, browser, nil)
	nav(t, tab, s, "/workflows/"+wf.Running, "#live-status")
	waitFor(t, tab, "Number(document.body.getAttribute('data-fragment-updates')) >= 1", "a first refresh")
	waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", "the page to say live")

	// The next refresh reads the workflow, then Redis freezes before it
	// reads the workers registry.
	st.armed.Store(true)
	select {
	case <-st.reached:
	case <-tab.Done():
		t.Fatal("no refresh came to the workers registry")
	}
	thaw := srv.Freeze(t)
	updates := textOfJS(t, tab, "document.body.getAttribute('data-fragment-updates')")
	waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'stale'", "the page to say stale with Redis frozen")

	// The held refresh goes on: its read of the registry fails after the
	// read timeout, and the page is answered without the hint.
	resume()
	n, err := strconv.Atoi(updates)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, "Number(document.body.getAttribute('data-fragment-updates')) > "+strconv.Itoa(n), "the held refresh's answer")
	if got := textOf(t, tab, "#live-status .live-text"); got != "stale" {
		t.Errorf("with Redis frozen, a refresh sent before the freeze made the page say %q, want stale", got)
	}

	thaw()
	waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", "the page to say live after Redis answers")
}
