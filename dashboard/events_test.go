package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// feedWait bounds the wait for one line of an event stream: the stream
// stays open (with keep-alive comments) when an event never comes, so a
// read without a bound would hang the test instead of failing it.
const feedWait = 10 * time.Second

// sse reads a server-sent event stream, one line at a time from a
// goroutine, so that a read can time out.
type sse struct {
	t     *testing.T
	resp  *http.Response
	lines chan string // closed when the stream ends
	err   error       // the scanner's error, once lines is closed
}

// openEvents opens the dashboard's event feed at target, with lastID as
// Last-Event-ID when not "".
func openEvents(t *testing.T, srv *httptest.Server, target, lastID string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET %s: %d %s, want 200 text/event-stream", target, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sse{t: t, resp: resp, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		s.err = sc.Err()
		close(s.lines)
	}()
	// The stream opens with a comment: the server is reading.
	if line, ok := s.line(); !ok || !strings.HasPrefix(line, ":") {
		t.Fatalf("GET %s: first line %q, want a comment", target, line)
	}
	return s
}

// close ends the stream, as a browser that lost its connection.
func (s *sse) close() { _ = s.resp.Body.Close() }

// line returns the next line of the stream, or false when it ended; it
// fails the test when none comes within feedWait.
func (s *sse) line() (string, bool) {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		return line, ok
	case <-time.After(feedWait):
		s.t.Fatalf("no line of the event stream within %v", feedWait)
		return "", false
	}
}

// feedEvent is one "job" message of the feed.
type feedEvent struct {
	pos  string
	data struct {
		Type     string `json:"type"`
		ID       string `json:"id"`
		Kind     string `json:"kind"`
		State    string `json:"state"`
		Attempt  int    `json:"attempt"`
		URL      string `json:"url"`
		Progress *struct {
			Percent float64 `json:"percent"`
			Data    string  `json:"data"`
			Log     []struct {
				Text string `json:"text"`
			} `json:"log"`
		} `json:"progress"`
	}
}

// next returns the next "job" message, skipping comments and id-only
// messages.
func (s *sse) next() feedEvent {
	s.t.Helper()
	var ev feedEvent
	var name, data string
	for {
		line, ok := s.line()
		if !ok {
			break
		}
		switch {
		case line == "":
			if name == "job" {
				if err := json.Unmarshal([]byte(data), &ev.data); err != nil {
					s.t.Fatalf("event data %q: %v", data, err)
				}
				return ev
			}
			name, data = "", ""
		case strings.HasPrefix(line, "id: "):
			ev.pos = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
	s.t.Fatalf("the event stream ended: %v", s.err)
	return ev
}

func TestEventFeed(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		srv := httptest.NewServer(newHandler(s, nil))
		t.Cleanup(srv.Close)
		c := hopper.NewClient(s, nil)
		feed := openEvents(t, srv, "/api/events?queue=default", "")

		a, err := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: "a"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ev := feed.next()
		if ev.data.Type != "enqueued" || ev.data.ID != a.ID || ev.data.Kind != "send_email" || ev.data.State != "ready" || ev.data.URL != "/jobs/default/"+a.ID || ev.pos == "" {
			t.Fatalf("first event: %+v, want job %s enqueued in ready, with its page and a position", ev, a.ID)
		}
		jobFeed := openEvents(t, srv, "/api/events?queue=default&job="+a.ID, "")

		// A job's feed has only that job's events: b's enqueue is left out.
		b, _ := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: "b"}, nil)
		if ev := feed.next(); ev.data.ID != b.ID {
			t.Fatalf("second event of the queue feed: %+v, want b's enqueue", ev)
		}
		res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("claim: %v, %v", res, err)
		}
		j := res.Jobs[0]
		ref := store.LeaseRef{Queue: j.Queue, ID: j.ID, Token: j.Token, Progress: &store.Progress{
			Percent: 30, Data: mustMsgpack(t, map[string]int{"rows": 3}), Log: []store.LogLine{{At: time.Now(), Text: "row 3"}},
		}}
		if _, err := s.Extend(t.Context(), []store.LeaseRef{ref}, time.Minute); err != nil {
			t.Fatal(err)
		}
		started := jobFeed.next()
		if started.data.Type != "started" || started.data.State != "unack" || started.data.Attempt != 1 {
			t.Fatalf("job feed: %+v, want a's start", started)
		}
		prog := jobFeed.next()
		if p := prog.data.Progress; prog.data.Type != "progress" || p == nil || p.Percent != 30 || p.Data != `{"rows":3}` || len(p.Log) != 1 || p.Log[0].Text != "row 3" {
			t.Fatalf("job feed: %+v, want a's progress at 30%% with its data as JSON and its line", prog)
		}

		// A browser that reconnects resumes after the last event it saw.
		again := openEvents(t, srv, "/api/events?queue=default", started.pos)
		if ev := again.next(); ev.data.Type != "progress" || ev.data.ID != a.ID {
			t.Fatalf("resumed feed: %+v, want the event after the start", ev)
		}
	})
}

func TestEventFeedErrors(t *testing.T) {
	h := newHandler(newMem(), nil)
	if r := get(t, h, "/api/events?queue=bad%20queue"); r.Code != http.StatusBadRequest {
		t.Errorf("feed of an invalid queue: %d, want 400", r.Code)
	}
	if r := get(t, newHandler(engineOnly{newMem()}, nil), "/api/events?queue=default"); r.Code != http.StatusNotImplemented {
		t.Errorf("feed on a store without events: %d, want 501", r.Code)
	}
}

func mustMsgpack(t *testing.T, v any) []byte {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A position the dashboard never gave out (a hand-made &from= or
// Last-Event-ID) is refused with 400 before the stream opens, naming the
// position: a stream that opened and then failed would be reopened by a
// browser every few seconds, each time logging an internal error.
func TestEventFeedBadPosition(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		h := newHandler(s, nil)
		for _, tc := range []struct{ name, query, header string }{
			{"from", "&from=nowhere", ""},
			{"from with a bad index", "&from=12/x", ""},
			{"Last-Event-ID", "", "-3"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				req := httptest.NewRequest(http.MethodGet, "/api/events?queue=default"+tc.query, nil)
				if tc.header != "" {
					req.Header.Set("Last-Event-ID", tc.header)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusBadRequest {
					t.Fatalf("status %d, want 400; body %q", rec.Code, rec.Body.String())
				}
				body := rec.Body.String()
				if !strings.Contains(body, "event position") || strings.Contains(body, "request_id") {
					t.Errorf("body %q, want the bad position named, no internal error", body)
				}
			})
		}
	})
}
