package dashboard

import (
	"net/http"
	"slices"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// workerRow is one live worker process.
type workerRow struct {
	hopper.WorkerInfo
	QueueList []queueWeight // its queues, by name
	Busy      int           // jobs it is running
}

// queueWeight is a queue a worker serves and its weight.
type queueWeight struct {
	Name   string
	Weight int
}

// workersPage is the data of the workers page.
type workersPage struct {
	base
	Workers   []workerRow
	Running   int   // jobs running across all workers
	Slots     int   // concurrency across all workers
	Processed int64 // attempts ended across all workers, since each started
	Failed    int64 // of them failed
	// ControlOK is true when the store carries commands to workers
	// (store.WorkerControl): the page offers Quiet and Stop.
	ControlOK bool
}

// serveWorkers renders the live worker processes and the jobs each runs.
func (d *dash) serveWorkers(w http.ResponseWriter, r *http.Request) {
	ws, err := d.ins.ListWorkers(r.Context())
	if err != nil {
		d.storeError(w, r, "listing workers", err)
		return
	}
	p := workersPage{base: d.base(r, "Workers", "workers")}
	_, p.ControlOK = store.As[store.WorkerControl](d.ins.Store())
	for _, info := range ws {
		row := workerRow{WorkerInfo: info, Busy: len(info.Running)}
		for q, weight := range info.Queues {
			row.QueueList = append(row.QueueList, queueWeight{q, weight})
		}
		slices.SortFunc(row.QueueList, func(a, b queueWeight) int { return strings.Compare(a.Name, b.Name) })
		slices.SortFunc(row.Running, func(a, b store.RunningJob) int { return a.StartedAt.Compare(b.StartedAt) })
		p.Workers = append(p.Workers, row)
		p.Running += row.Busy
		p.Slots += info.Concurrency
		p.Processed += info.Processed
		p.Failed += info.Failed
	}
	d.render(w, r, http.StatusOK, "workers", p)
}
