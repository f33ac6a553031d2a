package dashboard

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/hopperq/hopper"
)

// A queue that no store lists (it has no jobs and no settings) and no
// live worker serves is unknown. Its page says so rather than showing an
// empty queue, and the actions that would set it up (pause, limits, a
// group's cap) ask first: setting a queue up before its first job is
// legitimate, a mistyped name in the address is not.

// queueKnown reports whether the store lists queue or a live worker
// serves it.
func (d *dash) queueKnown(ctx context.Context, queue string) (bool, error) {
	listed, err := d.queueListed(ctx, queue)
	if err != nil || listed {
		return listed, err
	}
	ws, err := d.ins.ListWorkers(ctx)
	switch {
	case errors.Is(err, hopper.ErrNotSupported):
		return false, nil
	case err != nil:
		return false, err
	}
	return len(servingWorkers(ws, queue)) > 0, nil
}

// queueListed reports whether the store lists queue (Inspector.ListQueues).
func (d *dash) queueListed(ctx context.Context, queue string) (bool, error) {
	qs, err := d.ins.ListQueues(ctx)
	return slices.Contains(qs, queue), err
}

// askUnknownQueue returns the question an unconfirmed action that would
// set up queue answers with when the queue is unknown: heading asks it,
// verb is what the confirming button says. It returns nil when the queue
// is known or the action is confirmed.
func (d *dash) askUnknownQueue(r *http.Request, queue, heading, verb string) (*outcome, error) {
	if confirmed(r) {
		return nil, nil
	}
	known, err := d.queueKnown(r.Context(), queue)
	if err != nil || known {
		return nil, err
	}
	out := d.ask(r, askView{
		Heading: heading,
		Detail: "No queue is named " + queue + ": it has no jobs, settings or workers yet. Going on sets it up before its first job, " +
			"and workers that serve it follow its settings; check the name if you meant another queue.",
		Verb: verb,
		Back: d.queuePath(queue, hopper.StateReady),
	})
	return &out, nil
}

// deref returns *out, or the zero outcome for nil.
func deref(out *outcome) outcome {
	if out == nil {
		return outcome{}
	}
	return *out
}
