package faulttest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// roundTrips records what a client sent to each node and what came back:
// each command or pipeline, the node's address, when it ended, and every
// command's arguments and reply. A scenario that finds an acknowledged job
// lost prints the round trips that carried it (about): which node stored
// it and which WAIT acknowledged it.
type roundTrips struct {
	mu   sync.Mutex
	trip []roundTrip
}

// roundTrip is one command or pipeline as roundTrips recorded it.
type roundTrip struct {
	addr  string
	start time.Time
	end   time.Time
	cmds  []string // each command's arguments, then its reply or error
	err   error
}

// hookNodes has every node client of the cluster options o record its
// round trips in r.
func (r *roundTrips) hookNodes(o *redis.ClusterOptions) {
	o.NewClient = func(opt *redis.Options) *redis.Client {
		c := redis.NewClient(opt)
		c.AddHook(tripHook{r: r, addr: opt.Addr})
		return c
	}
}

// about returns, in the order they ended, the round trips one of whose
// commands carried s as an argument.
func (r *roundTrips) about(s string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, t := range r.trip {
		if !strings.Contains(strings.Join(t.cmds, "\n"), s) {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s → %s on %s (took %v), error %v:", t.start.Format("15:04:05.000"), t.end.Format("15:04:05.000"), t.addr, t.end.Sub(t.start).Round(time.Microsecond), t.err)
		for _, c := range t.cmds {
			b.WriteString("\n    ")
			b.WriteString(c)
		}
		out = append(out, b.String())
	}
	return out
}

func (r *roundTrips) add(t roundTrip) {
	r.mu.Lock()
	r.trip = append(r.trip, t)
	r.mu.Unlock()
}

// tripHook is the go-redis hook of roundTrips on one node's client.
type tripHook struct {
	r    *roundTrips
	addr string
}

func (h tripHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h tripHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.r.add(roundTrip{addr: h.addr, start: start, end: time.Now(), cmds: []string{describe(cmd)}, err: err})
		return err
	}
}

func (h tripHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		d := make([]string, len(cmds))
		for i, c := range cmds {
			d[i] = describe(c)
		}
		h.r.add(roundTrip{addr: h.addr, start: start, end: time.Now(), cmds: d, err: err})
		return err
	}
}

// describe is a command's arguments and its reply or error.
func describe(c redis.Cmder) string {
	s := fmt.Sprint(c) // the arguments, then the reply or error
	if _, ok := errors.AsType[net.Error](c.Err()); ok {
		s += " (a network error)"
	}
	return s
}
