package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/upgradetest/evidence"
)

// work runs a worker on every queue, with its scheduler enqueueing the
// ticks of a schedule every second, until ctx is done.
func work(ctx context.Context, c config, st hopper.Store, rec *evidence.Recorder, log *slog.Logger) error {
	queues := map[string]int{}
	for _, q := range evidence.Queues {
		queues[q] = 1
	}
	w := hopper.NewWorker(st, &hopper.WorkerConfig{
		Queues:      queues,
		Concurrency: 8,
		ID:          c.name,
		Logger:      log,
		// Retries come back after a second, not the default backoff's
		// seconds: long enough that, at a producer's steady rate, some
		// always wait in retry (the test checks some do at the
		// migration), short enough for the run to drain soon.
		Backoff: func(int, error) time.Duration { return time.Second },
		Scheduler: &hopper.SchedulerConfig{
			Logger: log,
			Schedules: []hopper.Schedule{{
				Name: "ut-tick", Spec: hopper.Every(time.Second), Args: Tick{},
				Opts: &hopper.ScheduleOpts{Queue: queueTick},
			}},
		},
	})
	h := handlers{rec: rec}
	hopper.Handle(w, h.plain)
	hopper.Handle(w, h.retried)
	hopper.Handle(w, h.doomed)
	hopper.Handle(w, h.grouped)
	hopper.Handle(w, h.task)
	hopper.Handle(w, h.tick)
	fmt.Println("ready")
	if err := w.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	fmt.Println("stopped")
	return nil
}

// handlers record every run in the evidence.
type handlers struct{ rec *evidence.Recorder }

// busy stands for a handler's work: a millisecond or a few, so that runs
// overlap and a stopping worker has jobs in flight.
func busy() { time.Sleep(time.Millisecond + rand.N(4*time.Millisecond)) }

func (h handlers) plain(ctx context.Context, job *hopper.Job[Plain]) error {
	if nb := job.Args.NotBefore; nb > 0 {
		if early := nb - time.Now().UnixMilli(); early > 0 {
			if err := h.rec.Early(ctx, job.Args.ID, early); err != nil {
				return err
			}
		}
	}
	busy()
	return h.rec.Succeeded(ctx, job.Args.ID, "", 0)
}

func (h handlers) retried(ctx context.Context, job *hopper.Job[Retried]) error {
	busy()
	if job.Attempt <= 1 {
		if err := h.rec.Failed(ctx, job.Args.ID); err != nil {
			return err
		}
		return errors.New("upgradetest: the first attempt fails")
	}
	return h.rec.Succeeded(ctx, job.Args.ID, "", 0)
}

func (h handlers) doomed(ctx context.Context, job *hopper.Job[Doomed]) error {
	busy()
	if err := h.rec.Failed(ctx, job.Args.ID); err != nil {
		return err
	}
	return errors.New("upgradetest: this job always fails")
}

func (h handlers) grouped(ctx context.Context, job *hopper.Job[Grouped]) error {
	if err := h.rec.EnterGroup(ctx, job.Args.Group); err != nil {
		return err
	}
	defer h.rec.LeaveGroup(context.WithoutCancel(ctx), job.Args.Group)
	busy()
	return h.rec.Succeeded(ctx, job.Args.ID, job.Args.Group, job.Args.Seq)
}

func (h handlers) task(ctx context.Context, job *hopper.Job[Task]) error {
	if err := h.rec.CheckDeps(ctx, job.Args.ID, job.Args.Deps); err != nil {
		return err
	}
	busy()
	return h.rec.Succeeded(ctx, job.Args.ID, "", 0)
}

// tick records the tick, which is the job's RunAt.
func (h handlers) tick(ctx context.Context, job *hopper.Job[Tick]) error {
	return h.rec.Ticked(ctx, job.RunAt)
}
