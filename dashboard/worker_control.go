package dashboard

import (
	"net/http"

	"github.com/hopperq/hopper/store"
)

// postWorker sends an operator's command to a live worker process: action
// "quiet" (claim no more jobs, finish the running ones, stay up) or "stop"
// (shut down as on its own). Both ask first. The worker takes the command
// on its next heartbeat.
func (d *dash) postWorker(r *http.Request) (outcome, error) {
	id, action := r.PathValue("id"), r.PathValue("action")
	ctl, ok := store.As[store.WorkerControl](d.ins.Store())
	if !ok {
		return outcome{}, &userError{http.StatusNotImplemented, "Workers cannot be controlled",
			"This store carries no commands to workers (it does not implement store.WorkerControl)."}
	}
	var cmd store.WorkerCommand
	switch action {
	case "quiet":
		cmd = store.WorkerQuiet
	case "stop":
		cmd = store.WorkerStop
	default:
		return outcome{}, &userError{http.StatusNotFound, "No such action", "A worker can be quieted or stopped."}
	}
	if err := store.ValidateWorkerCommand(id, cmd); err != nil {
		return outcome{}, &userError{http.StatusBadRequest, "No such worker", err.Error()}
	}
	ws, err := d.ins.ListWorkers(r.Context())
	if err != nil {
		return outcome{}, err
	}
	live := false
	for _, w := range ws {
		live = live || w.ID == id
	}
	if !live {
		return outcome{}, &userError{http.StatusNotFound, "No such worker", "No live worker process has the ID " + id + ": it may have stopped already."}
	}
	if !confirmed(r) {
		v := askView{Back: d.path("workers")}
		if cmd == store.WorkerQuiet {
			v.Heading = "Quiet worker " + id + "?"
			v.Detail = "It claims no more jobs and hands back the ones it claimed and had not started; the jobs it runs finish. The process stays up until it is stopped or restarted. It hears of this on its next heartbeat, within seconds."
			v.Verb = "Quiet the worker"
		} else {
			v.Heading = "Stop worker " + id + "?"
			v.Detail = "It shuts down as it does on its own: it claims no more jobs, lets the running ones finish for up to its shutdown timeout, then hands back the rest, and the process's worker returns. It hears of this on its next heartbeat, within seconds. Starting it again takes a restart of that process."
			v.Verb = "Stop the worker"
			v.Danger = true
		}
		return d.ask(r, v), nil
	}
	if err := ctl.SendWorkerCommand(r.Context(), id, cmd); err != nil {
		return outcome{}, err
	}
	return outcome{to: d.path("workers"), flash: "worker-" + action, n: 1, attrs: []any{"worker", id}}, nil
}

// opsFlashText is the text of the outcomes of the operator controls
// (workers, schedules); nil for an unknown one.
func opsFlashText(what string, n int) *flash {
	switch what {
	case "worker-quiet":
		return &flash{"ok", "Asked the worker to quiet: it stops claiming on its next heartbeat, and its running jobs finish."}
	case "schedule-run":
		return &flash{"ok", "Enqueued the schedule's job now, once; its next run stays as it was."}
	case "schedule-run-dup":
		return &flash{"warn", "Nothing was enqueued: the schedule's job is unique and this one still waits or runs."}
	case "schedule-forget":
		return &flash{"ok", "Removed the registered schedule. A process still running it registers it again within a minute."}
	case "worker-stop":
		return &flash{"ok", "Asked the worker to stop: it shuts down on its next heartbeat, letting its running jobs finish."}
	}
	return nil
}
