package dashboard

import (
	"errors"
	"net/http"

	"github.com/hopperq/hopper"
)

// runSchedule enqueues a stored schedule's job once, now, without moving
// its ticks (Inspector.RunScheduleNow), and goes to the job.
func (d *dash) runSchedule(r *http.Request, queue, name string) (outcome, error) {
	info, err := d.ins.RunScheduleNow(r.Context(), queue, name)
	switch {
	case errors.Is(err, hopper.ErrScheduleNotFound):
		return outcome{}, &userError{http.StatusNotFound, "No such schedule", "Queue " + queue + " has no stored schedule " + name + ": only stored schedules can be run from here (a schedule in code keeps its args in its program)."}
	case errors.Is(err, hopper.ErrNotSupported):
		return outcome{}, &userError{http.StatusNotImplemented, "Cannot run the schedule", "This store keeps no schedules."}
	case err != nil:
		return outcome{}, err
	}
	attrs := []any{"queue", queue, "schedule", name, "job", info.ID}
	if info.Duplicate {
		return outcome{to: d.jobPath(info.Queue, info.ID), flash: "schedule-run-dup", n: 1, attrs: attrs}, nil
	}
	return outcome{to: d.jobPath(info.Queue, info.ID), flash: "schedule-run", n: 1, attrs: attrs}, nil
}

// forgetSchedule removes a registered schedule (an orphaned one, whose
// processes are gone) after asking (Inspector.ForgetSchedule). It refuses
// a stored schedule: forgetting its registration would leave it listed and
// running, so it says to delete it instead.
func (d *dash) forgetSchedule(r *http.Request, queue, name string) (outcome, error) {
	scheds, err := d.ins.ListSchedules(r.Context())
	if err != nil {
		return outcome{}, err
	}
	for _, sc := range scheds {
		if sc.Queue == queue && sc.Name == name && sc.Stored {
			return outcome{}, &userError{http.StatusConflict, "Cannot remove the schedule",
				"Schedule " + name + " of queue " + queue + " is stored: Remove only forgets the registration of a schedule in code whose processes are gone. Delete it instead (its Delete button, Inspector.DeleteSchedule)."}
		}
	}
	if !confirmed(r) {
		return d.ask(r, askView{Heading: "Remove the registered schedule " + name + " of queue " + queue + "?", Danger: true,
			Detail: "It leaves this list with its last runs. A process still running it registers it again within a minute; a stored schedule of that name stays. Jobs it enqueued stay.",
			Verb:   "Remove the schedule", Back: d.path("schedules")}), nil
	}
	err = d.ins.ForgetSchedule(r.Context(), queue, name)
	switch {
	case errors.Is(err, hopper.ErrScheduleNotFound):
		return outcome{}, &userError{http.StatusNotFound, "No such schedule", "No process has registered schedule " + name + " of queue " + queue + "."}
	case errors.Is(err, hopper.ErrNotSupported):
		return outcome{}, &userError{http.StatusNotImplemented, "Cannot remove the schedule", "This store cannot forget registered schedules."}
	case err != nil:
		return outcome{}, err
	}
	return outcome{to: d.path("schedules"), flash: "schedule-forget", n: 1, attrs: []any{"queue", queue, "schedule", name}}, nil
}
