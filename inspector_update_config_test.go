package hopper_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/hopperq/hopper"
)

// Two operators changing different settings of one queue at once, many
// times, both win: no change of one undoes a change of the other.
func TestUpdateQueueConfigTwoOperatorsBothWin(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ins := hopper.NewInspector(open())
		ctx := t.Context()
		const rounds = 60
		bump := func(field func(*hopper.QueueConfig) *int) error {
			for range rounds {
				if err := ins.UpdateQueueConfig(ctx, "ops", func(c *hopper.QueueConfig) error {
					*field(c)++
					runtime.Gosched() // let the other operator in between read and write
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		}
		var wg sync.WaitGroup
		errs := make([]error, 3)
		wg.Go(func() { errs[0] = bump(func(c *hopper.QueueConfig) *int { return &c.GroupMaxRunning }) })
		wg.Go(func() { errs[1] = bump(func(c *hopper.QueueConfig) *int { return &c.GroupRateLimit }) })
		wg.Go(func() {
			for i := range rounds {
				pause := ins.PauseQueue
				if i%2 == 1 {
					pause = ins.ResumeQueue
				}
				if err := pause(ctx, "ops"); err != nil {
					errs[2] = err
					return
				}
			}
		})
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		st, err := ins.GetQueueStats(ctx, "ops")
		if err != nil {
			t.Fatal(err)
		}
		c := st.Config
		if c.GroupMaxRunning != rounds || c.GroupRateLimit != rounds || c.Paused {
			t.Fatalf("after %d changes by each operator: GroupMaxRunning %d, GroupRateLimit %d, Paused %v; want %d, %d, false (a change was lost)",
				rounds, c.GroupMaxRunning, c.GroupRateLimit, c.Paused, rounds, rounds)
		}
	})
}

// A change that fails writes nothing; one that is invalid fails with
// ErrInvalidConfig and writes nothing.
func TestUpdateQueueConfigErrorsWriteNothing(t *testing.T) {
	ins := hopper.NewInspector(newStore())
	ctx := context.Background()
	if err := ins.SetQueueConfig(ctx, "q", hopper.QueueConfig{MaxRunning: 3}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := ins.UpdateQueueConfig(ctx, "q", func(c *hopper.QueueConfig) error { c.MaxRunning = 5; return boom }); !errors.Is(err, boom) {
		t.Fatalf("UpdateQueueConfig with a failing change: %v, want its error", err)
	}
	if err := ins.UpdateQueueConfig(ctx, "q", func(c *hopper.QueueConfig) error { c.MaxRunning = -1; return nil }); !errors.Is(err, hopper.ErrInvalidConfig) {
		t.Fatalf("UpdateQueueConfig to a negative MaxRunning: %v, want ErrInvalidConfig", err)
	}
	st, err := ins.GetQueueStats(ctx, "q")
	if err != nil || st.Config.MaxRunning != 3 {
		t.Fatalf("MaxRunning after failed updates: %d, %v; want 3", st.Config.MaxRunning, err)
	}
}

// One operator's update reads the settings, then another operator's update
// runs to its end, then the first writes: the first sees the settings
// changed, reads them again, and both changes hold.
func TestUpdateQueueConfigInterleaved(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ins := hopper.NewInspector(open())
		ctx := t.Context()
		read, otherDone := make(chan struct{}), make(chan struct{})
		calls := 0
		first := make(chan error, 1)
		go func() {
			first <- ins.UpdateQueueConfig(ctx, "ops", func(c *hopper.QueueConfig) error {
				calls++
				if calls == 1 {
					close(read)
					<-otherDone
				}
				c.GroupMaxRunning = 2
				return nil
			})
		}()
		<-read
		err := ins.UpdateQueueConfig(ctx, "ops", func(c *hopper.QueueConfig) error { c.RateLimit = 7; return nil })
		close(otherDone)
		if err := errors.Join(err, <-first); err != nil {
			t.Fatal(err)
		}
		st, err := ins.GetQueueStats(ctx, "ops")
		if err != nil {
			t.Fatal(err)
		}
		if st.Config.GroupMaxRunning != 2 || st.Config.RateLimit != 7 || calls != 2 {
			t.Fatalf("GroupMaxRunning %d, RateLimit %d, first change called %d times; want 2, 7, 2 (the first update must see the second's write)",
				st.Config.GroupMaxRunning, st.Config.RateLimit, calls)
		}
	})
}

// A change that leaves a queue's settings as they are writes nothing: a
// resume, or an update that changes nothing, of a queue no store lists
// does not create it. It did: the stored zero settings were compared with
// the normalized new ones, whose RatePeriod Normalize fills.
func TestUpdateQueueConfigToNothingWritesNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ins := hopper.NewInspector(open())
		ctx := t.Context()
		if err := ins.ResumeQueue(ctx, "never"); err != nil {
			t.Fatal(err)
		}
		if err := ins.UpdateQueueConfig(ctx, "never", func(*hopper.QueueConfig) error { return nil }); err != nil {
			t.Fatal(err)
		}
		qs, err := ins.ListQueues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if q == "never" {
				t.Fatalf("a resume and an update to nothing of an unknown queue created it: ListQueues %v", qs)
			}
		}
	})
}
