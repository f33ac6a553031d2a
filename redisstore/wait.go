package redisstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// WaitReady blocks until a job may have become ready in one of queues (see
// store.Store), without polling: it BLPOPs the queues' ready-wake lists,
// which every script that makes ready non-empty pushes one token onto (and
// a claim that leaves jobs behind pushes again, so the next idle worker
// wakes too). A timeout of zero or less returns at once.
//
// Each blocking command lasts at most Options.MaxBlock, so an idle worker
// sends a few commands per second at most. go-redis does not interrupt a
// blocking read when ctx ends, so the wait also blocks on a private key of
// its own that a context.AfterFunc pushes to: cancellation returns within a
// round trip. On a Redis Cluster the queues are grouped by hash slot, one
// BLPOP per group in its own goroutine; the first to wake ends the others
// the same way.
func (s *Store) WaitReady(ctx context.Context, queues []string, timeout time.Duration) error {
	return s.wait(ctx, "wait ready", queues, timeout, func(k *queueKeys) string { return k.wake })
}

// WaitSchedule blocks until the next due time in one of queues may have
// moved earlier (see store.Store), the same way as WaitReady on the
// queues' schedule-wake lists: pushed by a delayed enqueue that became the
// earliest, a retry or snooze that did, a lease earlier than every other
// (a claim onto an empty unack set), a done retention that expires first,
// and the first garbage job.
func (s *Store) WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) error {
	return s.wait(ctx, "wait schedule", queues, timeout, func(k *queueKeys) string { return k.sched })
}

// waitGroup is the keys one blocking command waits on: wake lists of one
// slot (or of all queues on a plain client) and a private key in the same
// slot that ending the wait pushes to.
type waitGroup struct {
	keys   []string // wake lists, then the private key last
	waiter string
}

func (s *Store) wait(ctx context.Context, op string, queues []string, timeout time.Duration, list func(*queueKeys) string) error {
	if timeout <= 0 || ctx.Err() != nil {
		return store.ValidateQueues(queues)
	}
	if err := s.begin(ctx, queues...); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if len(queues) == 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		return nil
	}
	groups := s.waitGroups(queues, list)
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return nil
		}
		popped, err := s.blockOnce(ctx, groups, min(left, s.opts.MaxBlock))
		if err != nil {
			return wrap(op, err)
		}
		if len(popped) > 0 {
			if ctx.Err() != nil {
				// Our caller will not claim: hand the wake-ups on to the
				// next waiter rather than lose them.
				bg := context.WithoutCancel(ctx)
				for _, k := range popped {
					_ = s.rdb.RPush(bg, k, "1").Err()
				}
			}
			return nil
		}
	}
}

// waitGroups builds the groups of one wait: one on a plain client, one per
// hash slot otherwise.
func (s *Store) waitGroups(queues []string, list func(*queueKeys) string) []*waitGroup {
	id := s.waiterID + "." + strconv.FormatUint(s.waiterSeq.Add(1), 10)
	if !s.sharded {
		g := &waitGroup{waiter: s.g.tag + "z:" + id}
		for _, q := range queues {
			g.keys = append(g.keys, list(s.queueKeys(q)))
		}
		g.keys = append(g.keys, g.waiter)
		return []*waitGroup{g}
	}
	bySlot := make(map[int]*waitGroup)
	var groups []*waitGroup
	for _, q := range queues {
		k := s.queueKeys(q)
		slot := keySlot(k.tag)
		g := bySlot[slot]
		if g == nil {
			g = &waitGroup{waiter: k.tag + "z:" + id}
			bySlot[slot] = g
			groups = append(groups, g)
		}
		g.keys = append(g.keys, list(k))
	}
	for _, g := range groups {
		g.keys = append(g.keys, g.waiter)
	}
	return groups
}

// blockOnce waits up to block on every group at once and returns the wake
// lists it popped a token from (none on timeout or cancellation).
func (s *Store) blockOnce(ctx context.Context, groups []*waitGroup, block time.Duration) ([]string, error) {
	if len(groups) == 1 {
		k, err := s.blockGroup(ctx, groups[0], block)
		if k == "" {
			return nil, err
		}
		return []string{k}, err
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		popped   []string
		firstErr error
	)
	for _, g := range groups {
		wg.Go(func() {
			k, err := s.blockGroup(inner, g, block)
			mu.Lock()
			defer mu.Unlock()
			if k != "" {
				popped = append(popped, k)
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if k != "" || err != nil {
				cancel() // end the other groups' waits
			}
		})
	}
	wg.Wait()
	return popped, firstErr
}

// waiterTTL bounds how long a private wake key can outlive its wait (when
// the cleanup DEL could not be sent).
const waiterTTL = time.Minute

// blockGroup runs one BLPOP over g's keys for up to block and returns the
// wake list it popped from, or "" on timeout or when its private key was
// pushed (ctx done).
func (s *Store) blockGroup(ctx context.Context, g *waitGroup, block time.Duration) (string, error) {
	pushed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(pushed)
		bg := context.WithoutCancel(ctx)
		_, _ = s.rdb.Pipelined(bg, func(p redis.Pipeliner) error {
			p.RPush(bg, g.waiter, "1")
			p.PExpire(bg, g.waiter, waiterTTL)
			return nil
		})
	})
	popped, err := s.blpop(context.WithoutCancel(ctx), g.keys, block)
	if !stop() {
		// The push ran or is running: wait for it, then drop the token
		// if the BLPOP did not take it.
		<-pushed
		_ = s.rdb.Del(context.WithoutCancel(ctx), g.waiter).Err()
	}
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil || popped == g.waiter {
		return "", err
	}
	return popped, nil
}

// blpop pops from the first non-empty list of keys, blocking up to block,
// and returns the key it popped from (redis.Nil on timeout). go-redis's
// BLPop rounds timeouts down to whole seconds, so a shorter block is sent
// with its fraction by hand.
func (s *Store) blpop(ctx context.Context, keys []string, block time.Duration) (string, error) {
	if block >= time.Second {
		res, err := s.rdb.BLPop(ctx, block.Truncate(time.Second), keys...).Result()
		if err != nil {
			return "", err
		}
		return res[0], nil
	}
	args := make([]any, 0, len(keys)+2)
	args = append(args, "blpop")
	for _, k := range keys {
		args = append(args, k)
	}
	args = append(args, strconv.FormatFloat(max(block.Seconds(), 0.001), 'f', 3, 64))
	cmd := redis.NewStringSliceCmd(ctx, args...)
	_ = s.rdb.Process(ctx, cmd)
	res, err := cmd.Result()
	if err != nil {
		return "", err
	}
	return res[0], nil
}
