package dashboard_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"testing"
	"time"

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

// TestJobJSONOptions: a job's JSON carries every option that is set,
// those without a field of their own (Retention, UniqueFor) included.
func TestJobJSONOptions(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		c := hopper.NewClient(s, nil)
		info, err := hopper.Enqueue(t.Context(), c, dashtest.ReportArgs{}, &hopper.EnqueueOpts{
			Delay: time.Hour, Retention: 2 * time.Hour, MaxRetries: 4, Priority: 2,
			Unique: &hopper.UniqueOpts{Key: "report-1", For: 3 * time.Minute},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := get(t, newHandler(s, nil), "/api/jobs/default/"+info.ID)
		wantStatus(t, r, http.StatusOK, "job JSON")
		var j struct{ Options map[string]any }
		if err := json.Unmarshal([]byte(r.Body), &j); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"retention_ms": 7.2e6, "max_retries": 4.0, "priority": 2.0, "unique_key": "report-1", "unique_for_ms": 180000.0}
		if !maps.Equal(j.Options, want) {
			t.Errorf("options %v, want %v", j.Options, want)
		}
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
