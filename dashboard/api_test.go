package dashboard_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// apiJob is the part of a job's JSON the tests read.
type apiJob struct {
	ID, Queue, Kind, State string
	Args                   map[string]any
	ArgsError              string `json:"args_error"`
	Result                 map[string]any
	Meta                   map[string]string
	TraceID                string `json:"trace_id"`
	Attempt                int
	Errors                 []struct {
		Attempt      int
		Error, Stack string
	}
}

func TestJobJSON(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/api/jobs/default/"+f.Garbage[0])
		wantStatus(t, r, http.StatusOK, "job JSON")
		var j apiJob
		if err := json.Unmarshal([]byte(r.Body), &j); err != nil {
			t.Fatal(err)
		}
		if j.ID != f.Garbage[0] || j.State != "garbage" || j.Kind != "send_email" || j.Attempt != 1 {
			t.Errorf("job %+v", j)
		}
		if j.Args["subject"] != dashtest.XSSText || j.Args["password"] != "[redacted]" {
			t.Errorf("args %v: want the subject as is and the password redacted", j.Args)
		}
		if len(j.Errors) != 1 || j.Errors[0].Error != dashtest.GarbageError || j.Errors[0].Stack != dashtest.StackText {
			t.Errorf("errors %+v", j.Errors)
		}

		var traced apiJob
		if err := json.Unmarshal([]byte(get(t, h, "/api/jobs/default/"+f.Traced).Body), &traced); err != nil {
			t.Fatal(err)
		}
		if traced.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || traced.Meta["traceparent"] != dashtest.Traceparent || traced.Meta["api_token"] != "[redacted]" {
			t.Errorf("traced job: trace %q, meta %v", traced.TraceID, traced.Meta)
		}
		var done apiJob
		if err := json.Unmarshal([]byte(get(t, h, "/api/jobs/default/"+f.Done).Body), &done); err != nil {
			t.Fatal(err)
		}
		if done.Result["file"] != dashtest.ResultText {
			t.Errorf("done job result %v", done.Result)
		}
		wantStatus(t, get(t, h, "/api/jobs/default/nope"), http.StatusNotFound, "unknown job JSON")
	})
}

func TestJobsJSON(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		var page struct {
			Total  int
			Jobs   []apiJob
			Search struct {
				From, Next int
				Done       bool
			}
		}
		r := get(t, h, "/api/queues/default/ready?kind=send_email&args=carol")
		wantStatus(t, r, http.StatusOK, "jobs JSON")
		if err := json.Unmarshal([]byte(r.Body), &page); err != nil {
			t.Fatal(err)
		}
		// Total counts the state; the search examined all of it.
		if page.Total != 3 || len(page.Jobs) != 1 || page.Jobs[0].ID != f.Ready[1] || page.Search.Next != 3 || !page.Search.Done {
			t.Errorf("search JSON: %+v, want only %s, the 3 ready jobs searched to the end", page, f.Ready[1])
		}
	})
}
