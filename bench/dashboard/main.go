// Command dashboard times hopper's dashboard on Redis with a million jobs
// in one state: the overview, the first page, page 10,000, and searches by
// kind, by args and by an ID's start for a job at nine tenths of the state (the
// first answer, and the whole search as the page runs it: a request per
// stretch until the job shows). Run it from the repository root with
//
//	go run -C bench ./dashboard -redis 127.0.0.1:6379
//
// against a Redis server of its own: it flushes it. With -kind-index
// enqueue the queue keeps a kind index (store.QueueConfig.KindIndex) from
// the start; with -kind-index later it is turned on once the jobs are in,
// and the time Maintain takes to index them is reported. Either way the
// Redis memory used after the enqueue is reported.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"
	"golang.org/x/sync/errgroup"
)

func main() {
	addr := flag.String("redis", "127.0.0.1:6379", "Redis server (flushed: use one of its own)")
	n := flag.Int("n", 1_000_000, "jobs in the queue's ready state")
	reps := flag.Int("reps", 5, "timings per request (the median is reported)")
	kindIndex := flag.String("kind-index", "", `keep a kind index: "enqueue" (on before the jobs come) or "later" (built after)`)
	flag.Parse()
	if *kindIndex != "" && *kindIndex != "enqueue" && *kindIndex != "later" {
		fmt.Fprintln(os.Stderr, `dashboard: -kind-index takes "enqueue" or "later"`)
		os.Exit(2)
	}
	if err := run(*addr, *n, *reps, *kindIndex); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard:", err)
		os.Exit(1)
	}
}

func run(addr string, n, reps int, kindIndex string) error {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 16})
	defer rdb.Close()
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		return err
	}
	st := redisstore.New(rdb, &redisstore.Config{Prefix: "dash"})
	if kindIndex == "enqueue" {
		if err := st.SetQueueConfig(ctx, "big", store.QueueConfig{KindIndex: true}); err != nil {
			return err
		}
	}
	needle := n * 9 / 10
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	const batch = 5000
	for from := 0; from < n; from += batch {
		g.Go(func() error {
			var jobs []*store.NewJob
			for i := from; i < min(from+batch, n); i++ {
				kind := "bulk_mail"
				if i == needle+1 {
					kind = "rare_report"
				}
				args, err := msgpack.Marshal(map[string]string{"to": fmt.Sprintf("user%d@example.com", i)})
				if err != nil {
					return err
				}
				jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("big-%07d", i), Queue: "big", Kind: kind, Args: args})
			}
			_, err := st.Enqueue(gctx, jobs)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	fmt.Printf("%d jobs in big/ready, enqueued in %v (order within batches of %d may interleave: the needle's position is about %d)\n\n",
		n, time.Since(start).Round(time.Millisecond), batch, needle)
	if kindIndex == "later" {
		start := time.Now()
		if err := st.SetQueueConfig(ctx, "big", store.QueueConfig{KindIndex: true}); err != nil {
			return err
		}
		passes := 0
		for ; ; passes++ {
			qs, err := st.GetQueueStats(ctx, "big")
			if err != nil {
				return err
			}
			if !qs.KindIndexBuilding {
				break
			}
			if _, err := st.Maintain(ctx, "big", store.MaintainOpts{}); err != nil {
				return err
			}
		}
		fmt.Printf("kind index built in %v (%d maintenance passes)\n", time.Since(start).Round(time.Millisecond), passes)
	}
	if mem, err := rdb.Info(ctx, "memory").Result(); err == nil {
		for _, line := range strings.Split(mem, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				fmt.Printf("Redis used_memory: %s bytes\n", v)
			}
		}
	}
	fmt.Println()
	if err := seedFailures(ctx, st); err != nil {
		return err
	}
	// The server time of each request: from the handler's start to its
	// end, without the HTTP round trip (requests run one at a time).
	var served time.Duration
	h := dashboard.New(st, &dashboard.Config{Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		h.ServeHTTP(w, r)
		served = time.Since(t0)
	}))
	defer srv.Close()

	fmt.Println("| request | median | max | server time, median | server time, max |")
	fmt.Println("|---|---|---|---|---|")
	for _, p := range []struct{ name, path string }{
		{"overview", "/"},
		{"first page of ready", "/queues/big/ready"},
		{fmt.Sprintf("page %d of ready (the last)", (n+49)/50), fmt.Sprintf("/queues/big/ready?page=%d", (n+49)/50)},
		{"page 10,000 of ready", "/queues/big/ready?page=10000"},
		{"kind filter, first answer", "/queues/big/ready?kind=rare_report"},
		{"args search, first answer", fmt.Sprintf("/queues/big/ready?args=user%d@example", needle)},
		{"ID prefix, first answer", fmt.Sprintf("/queues/big/ready?id=big-%06d", needle/10)},
		{"Retries, every queue", "/retries"},
		{"Dead, every queue", "/dead"},
		{"Dead, args search", "/dead?args=user3@"},
	} {
		var ds, ss []time.Duration
		for range reps {
			t0 := time.Now()
			if _, err := get(srv.URL + p.path); err != nil {
				return err
			}
			ds = append(ds, time.Since(t0))
			ss = append(ss, served)
		}
		slices.Sort(ds)
		slices.Sort(ss)
		r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
		fmt.Printf("| %s | %v | %v | %v | %v |\n", p.name, r(ds[len(ds)/2]), r(ds[len(ds)-1]), r(ss[len(ss)/2]), r(ss[len(ss)-1]))
	}
	fmt.Println()
	fmt.Printf("| whole search for the job near position %d | requests | time |\n", needle)
	fmt.Println("|---|---|---|")
	more := regexp.MustCompile(`href="([^"]+)" id="search-more"`)
	for _, p := range []struct{ name, path, want string }{
		{"by kind", "/queues/big/ready?kind=rare_report", fmt.Sprintf("big-%07d", needle+1)},
		{"by args", fmt.Sprintf("/queues/big/ready?args=user%d@example", needle), fmt.Sprintf("big-%07d", needle)},
	} {
		t0 := time.Now()
		url, reqs := srv.URL+p.path, 0
		for {
			body, err := get(url)
			if err != nil {
				return err
			}
			reqs++
			if strings.Contains(body, `data-job-row="`+p.want+`"`) {
				break
			}
			m := more.FindStringSubmatch(body)
			if m == nil || m[1] == "" {
				return fmt.Errorf("search %s ended without %s", p.name, p.want)
			}
			url = srv.URL + strings.ReplaceAll(m[1], "&amp;", "&")
		}
		fmt.Printf("| %s | %d | %v |\n", p.name, reqs, time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// seedFailures gives three more queues 50 retry and 50 dead jobs each,
// for the Retries and Dead pages.
func seedFailures(ctx context.Context, st *redisstore.Store) error {
	for _, q := range []string{"mail", "sms", "push"} {
		var jobs []*store.NewJob
		for i := range 100 {
			args, err := msgpack.Marshal(map[string]string{"to": fmt.Sprintf("user%d@example.com", i)})
			if err != nil {
				return err
			}
			jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("%s-%03d", q, i), Queue: q, Kind: "notify", Args: args})
		}
		if _, err := st.Enqueue(ctx, jobs); err != nil {
			return err
		}
		res, err := st.Claim(ctx, store.ClaimOpts{Queue: q, Max: 100, Lease: time.Hour, WorkerID: "bench"})
		if err != nil {
			return err
		}
		var ends []store.AttemptEnd
		for i, j := range res.Jobs {
			out := store.OutcomeRetry
			if i%2 == 1 {
				out = store.OutcomeGarbage
			}
			ends = append(ends, store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: out, Delay: time.Duration(i) * time.Minute,
				Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "gateway timeout"}})
		}
		if _, err := st.Finish(ctx, ends); err != nil {
			return err
		}
	}
	return nil
}

func get(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(b), err
}
