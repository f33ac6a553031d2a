package dashboard_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
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
		f := seed(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/api/jobs/default/"+f.garbage[0])
		wantStatus(t, r, http.StatusOK, "job JSON")
		var j apiJob
		if err := json.Unmarshal([]byte(r.Body), &j); err != nil {
			t.Fatal(err)
		}
		if j.ID != f.garbage[0] || j.State != "garbage" || j.Kind != "send_email" || j.Attempt != 1 {
			t.Errorf("job %+v", j)
		}
		if j.Args["subject"] != xssText || j.Args["password"] != "[redacted]" {
			t.Errorf("args %v: want the subject as is and the password redacted", j.Args)
		}
		if len(j.Errors) != 1 || j.Errors[0].Error != garbageError || j.Errors[0].Stack != stackText {
			t.Errorf("errors %+v", j.Errors)
		}

		var traced apiJob
		if err := json.Unmarshal([]byte(get(t, h, "/api/jobs/default/"+f.traced).Body), &traced); err != nil {
			t.Fatal(err)
		}
		if traced.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || traced.Meta["traceparent"] != traceparent || traced.Meta["api_token"] != "[redacted]" {
			t.Errorf("traced job: trace %q, meta %v", traced.TraceID, traced.Meta)
		}
		var done apiJob
		if err := json.Unmarshal([]byte(get(t, h, "/api/jobs/default/"+f.done).Body), &done); err != nil {
			t.Fatal(err)
		}
		if done.Result["file"] != resultText {
			t.Errorf("done job result %v", done.Result)
		}
		wantStatus(t, get(t, h, "/api/jobs/default/nope"), http.StatusNotFound, "unknown job JSON")
	})
}

func TestJobsJSON(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := seed(t, s)
		h := newHandler(s, nil)
		var page struct {
			Total int
			Jobs  []apiJob
		}
		r := get(t, h, "/api/queues/default/ready?kind=send_email&args=carol")
		wantStatus(t, r, http.StatusOK, "jobs JSON")
		if err := json.Unmarshal([]byte(r.Body), &page); err != nil {
			t.Fatal(err)
		}
		if page.Total != 1 || len(page.Jobs) != 1 || page.Jobs[0].ID != f.ready[1] {
			t.Errorf("search JSON: %+v, want only %s", page, f.ready[1])
		}
	})
}
