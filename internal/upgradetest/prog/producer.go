package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/upgradetest/evidence"
)

// producer enqueues a steady mix of jobs, one per tick of its rate, in a
// cycle of 20: 9 plain, 3 delayed, 2 retried, 1 doomed, 4 grouped and 1
// workflow of five tasks.
type producer struct {
	c      config
	client *hopper.Client
	rec    *evidence.Recorder
	log    *slog.Logger
	// groupSeq counts the jobs enqueued per group, their order.
	groupSeq map[string]int
	counts   map[string]int
}

func produce(ctx context.Context, c config, st hopper.Store, rec *evidence.Recorder, log *slog.Logger) error {
	if c.rate <= 0 {
		return fmt.Errorf("-rate %v must be positive", c.rate)
	}
	p := &producer{c: c, client: hopper.NewClient(st, nil), rec: rec, log: log,
		groupSeq: map[string]int{}, counts: map[string]int{}}
	tick := time.NewTicker(time.Duration(float64(time.Second) / c.rate))
	defer tick.Stop()
	fmt.Println("ready")
	for seq := 0; ; seq++ {
		select {
		case <-ctx.Done():
			fmt.Printf("stopped after %d enqueues: %v\n", seq, p.counts)
			return nil
		case <-tick.C:
		}
		// A stop signal does not cut an enqueue short: once called, it
		// finishes, so that every job is either produced or never tried.
		if err := p.one(context.WithoutCancel(ctx), seq); err != nil {
			return err
		}
	}
}

// one enqueues the seq-th job of the cycle.
func (p *producer) one(ctx context.Context, seq int) error {
	id := fmt.Sprintf("%s-%06d", p.c.name, seq)
	switch slot := seq % 20; {
	case slot < 9:
		return p.enqueue(ctx, evidence.Plain, id, Plain{Payload{ID: id}}, &hopper.EnqueueOpts{Queue: queueMain})
	case slot < 12:
		delay := 500*time.Millisecond + rand.N(4500*time.Millisecond)
		args := Plain{Payload{ID: id, NotBefore: time.Now().Add(delay).UnixMilli()}}
		return p.enqueue(ctx, evidence.Delayed, id, args, &hopper.EnqueueOpts{Queue: queueMain, Delay: delay})
	case slot < 14:
		return p.enqueue(ctx, evidence.Retried, id, Retried{Payload{ID: id}}, &hopper.EnqueueOpts{Queue: queueMain, MaxRetries: 3})
	case slot < 15:
		return p.enqueue(ctx, evidence.Doomed, id, Doomed{Payload{ID: id}}, &hopper.EnqueueOpts{Queue: queueDead, MaxRetries: 1})
	case slot < 19:
		group := fmt.Sprintf("%s-g%d", p.c.name, seq%3)
		p.groupSeq[group]++
		args := Grouped{Payload{ID: id, Group: group, Seq: p.groupSeq[group]}}
		return p.enqueue(ctx, evidence.Grouped, id, args, &hopper.EnqueueOpts{Queue: queueGroups, Group: group})
	default:
		return p.workflow(ctx, id)
	}
}

// enqueue enqueues args under the job ID id, retrying a failed call
// (the same ID makes a retry idempotent) for up to ten seconds, then
// records it as produced.
func (p *producer) enqueue(ctx context.Context, class, id string, args hopper.Args, opts *hopper.EnqueueOpts) error {
	opts.ID = id
	err := p.retry(ctx, "enqueue "+id, func() error {
		_, err := hopper.Enqueue(ctx, p.client, args, opts)
		return err
	})
	if err != nil {
		return err
	}
	p.counts[class]++
	return p.retry(ctx, "record "+id, func() error { return p.rec.Produced(ctx, class, id) })
}

// workflow enqueues a workflow of five tasks: a chain a → b → c, with b
// delayed a second after a ends (so that workflows stay in flight), a
// task x beside b and c, and z, which waits for both c and x (a fan-in).
func (p *producer) workflow(ctx context.Context, id string) error {
	wf := hopper.NewWorkflow("upgradetest", &hopper.WorkflowOpts{ID: id})
	task := func(name string, delay time.Duration, deps ...*hopper.Task) *hopper.Task {
		pl := Payload{ID: id + "~" + name}
		for _, d := range deps {
			pl.Deps = append(pl.Deps, id+"~"+d.Name())
		}
		return hopper.AddTask(wf, name, Task{pl}, &hopper.TaskOpts{Queue: queueFlow, Delay: delay}).After(deps...)
	}
	a := task("a", 0)
	b := task("b", time.Second, a)
	c := task("c", 0, b)
	x := task("x", 0, a)
	task("z", 0, c, x)
	err := p.retry(ctx, "enqueue workflow "+id, func() error {
		_, err := hopper.EnqueueWorkflow(ctx, p.client, wf)
		return err
	})
	if err != nil {
		return err
	}
	p.counts[evidence.Workflow]++
	return p.retry(ctx, "record "+id, func() error {
		return p.rec.ProducedWorkflow(ctx, id, id+"~a", id+"~b", id+"~c", id+"~x", id+"~z")
	})
}

// retry calls fn until it succeeds, for up to ten seconds.
func (p *producer) retry(ctx context.Context, what string, fn func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := fn()
		if err == nil {
			return nil
		}
		p.rec.EnqueueError(ctx)
		p.log.Warn("producer: call failed, retrying", "what", what, "error", err)
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
