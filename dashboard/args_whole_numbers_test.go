package dashboard_test

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/hoppertest"
)

// sizeArgs has an integer field and a float one, as a handler's args may.
type sizeArgs struct {
	Width int     `msgpack:"width"`
	Ratio float64 `msgpack:"ratio"`
}

func (sizeArgs) Kind() string { return "resize" }

// TestEditArgsWholeNumbers: args edited as JSON with whole numbers written
// 100.0 or 1e2 run: the worker decodes them into both an int field and a
// float64 one. They were stored as floats, shown as 100 all the same, and
// the job died with "msgpack: invalid code=cb decoding int64".
func TestEditArgsWholeNumbers(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		cases := []struct {
			width, ratio string
			want         sizeArgs
		}{
			{"100.0", "1e2", sizeArgs{100, 100}},
			{"1e2", "2.5", sizeArgs{100, 2.5}},
			{"1.0E+2", "100.0", sizeArgs{100, 100}},
			{"-0.0", "-3e0", sizeArgs{0, -3}},
			{"9007199254740993.0", "0.5", sizeArgs{9007199254740993, 0.5}}, // read exactly, not as a float64
		}
		ids := map[string]sizeArgs{}
		for _, c := range cases {
			info, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), sizeArgs{Width: 1, Ratio: 1}, &hopper.EnqueueOpts{Delay: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			job := "/jobs/default/" + info.ID
			edit := `{"width": ` + c.width + `, "ratio": ` + c.ratio + `}`
			wantRedirect(t, post(t, h, job+"/args", url.Values{"args": {edit}}), job+"?flash=args", edit)
			wantRedirect(t, post(t, h, job+"/reschedule", url.Values{"in": {"0s"}}), job+"?flash=rescheduled", "run "+edit+" now")
			ids[info.ID] = c.want
		}

		var mu sync.Mutex
		got := map[string]sizeArgs{}
		w := hopper.NewWorker(s, &hopper.WorkerConfig{Queues: map[string]int{"default": 1}, Logger: discardLogger, DisableScheduler: true})
		hopper.Handle(w, func(_ context.Context, j *hopper.Job[sizeArgs]) error {
			mu.Lock()
			defer mu.Unlock()
			got[j.ID] = j.Args
			return nil
		})
		hoppertest.Drain(ctx, t, w, s)
		mu.Lock()
		defer mu.Unlock()
		for id, want := range ids {
			if j, err := ins.GetJob(ctx, "default", id); err == nil && len(j.Errors) > 0 {
				t.Errorf("job %s (%+v) failed: %s", id, want, j.Errors[len(j.Errors)-1].Error)
			}
			if got[id] != want {
				t.Errorf("job %s ran with %+v, want %+v", id, got[id], want)
			}
		}
	})
}
