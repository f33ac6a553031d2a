package dashboard

import (
	"context"
	"errors"
	"slices"

	"github.com/hopperq/hopper"
)

// unservedQueues returns those of queues (in their order, each once) that
// no live worker of the registry serves: a job waiting there stays
// "running" in its workflow for as long as no worker comes. It returns
// nil when queues is empty or the registry cannot be read (the hint is
// left out rather than guessed); a store failure is logged.
func (d *dash) unservedQueues(ctx context.Context, queues []string) []string {
	if len(queues) == 0 {
		return nil
	}
	ws, err := d.ins.ListWorkers(ctx)
	if err != nil {
		if !errors.Is(err, hopper.ErrNotSupported) {
			d.cfg.Logger.Error("dashboard: store call failed", "what", "reading the workers registry", "error", err)
		}
		return nil
	}
	var out []string
	for _, q := range queues {
		if slices.Contains(out, q) {
			continue
		}
		served := false
		for _, w := range ws {
			if _, ok := w.Queues[q]; ok {
				served = true
				break
			}
		}
		if !served {
			out = append(out, q)
		}
	}
	return out
}
