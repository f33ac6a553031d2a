package hopper

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// maxConfigSwaps bounds how many times UpdateQueueConfig reads and swaps
// again when others keep changing the queue's settings.
const maxConfigSwaps = 100

// UpdateQueueConfig changes some of queue's settings and keeps the others,
// atomically: it reads the settings, calls change with a copy, and writes
// the copy only if nobody changed the settings in between (a
// compare-and-swap in the store, store.ConfigSwapper); if somebody did,
// it reads them again and calls change again. Two operators changing
// different settings of one queue at once both win. change therefore sets
// only the fields it means to change (c.GroupMaxRunning = 2), may be
// called more than once, and should not block; when it returns an error,
// nothing is written and UpdateQueueConfig returns that error. The result
// is normalized as SetQueueConfig's argument is (a zero RatePeriod becomes
// one second; a negative field fails with ErrInvalidConfig, and so does a
// RatePeriod the change sets without a RateLimit, while one a removed
// RateLimit leaves behind is dropped; the same for GroupRatePeriod). A
// change that leaves the settings as they are writes nothing on a queue
// without settings, and writes them again, unchanged, on one with some,
// so that the store derives again what its claims read from them (a rate
// limit's guard, which releases before v0.1.0 did not store). A RatePeriod without a
// RateLimit that older versions stored, which does nothing, change sees
// as zero (QueueConfig.WithoutIdlePeriods): a change of another setting
// drops it, and a RateLimit set alone gets the default period. Every
// worker applies the new settings at its next claim.
//
// On a store without store.ConfigSwapper it reads and replaces the
// settings (SetQueueConfig), so a change made by another operator in
// between is lost. After 100 refused swaps in a row it gives up with an
// error, having written nothing. Safe for concurrent use.
func (i *Inspector) UpdateQueueConfig(ctx context.Context, queue string, change func(*QueueConfig) error) error {
	if err := i.made(); err != nil {
		return err
	}
	a, err := i.adminFor("queue settings")
	if err != nil {
		return err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return err
	}
	cs, atomic := store.As[store.ConfigSwapper](i.st)
	for range maxConfigSwaps {
		st, err := a.GetQueueStats(ctx, queue)
		if err != nil {
			return err
		}
		// An idle period older versions stored is none: the change
		// neither trips over it nor revives it with a limit.
		from := st.Config.WithoutIdlePeriods()
		cfg := from
		if err := change(&cfg); err != nil {
			return err
		}
		if cfg, err = cfg.NormalizeChange(from); err != nil {
			return err
		}
		// Against the stored settings as Normalize reads them: a queue
		// never configured holds zeros Normalize fills (RatePeriod), and
		// a change to nothing must write nothing (nor create the queue).
		// A queue with settings gets them written again, unchanged: the
		// store derives from them what its claims read (a rate limit's
		// guard), which a release before v0.1.0 set without, and the
		// upgrade guide has "hopper queues set" write them again.
		if old, err := from.Normalize(); err == nil && cfg == old && from == (store.QueueConfig{}) {
			return nil
		}
		if !atomic {
			return a.SetQueueConfig(ctx, queue, cfg)
		}
		ok, err := cs.CompareAndSwapQueueConfig(ctx, queue, st.Config, cfg)
		if err != nil || ok {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return fmt.Errorf("hopper: the settings of queue %q changed under %d updates in a row; nothing written", queue, maxConfigSwaps)
}
