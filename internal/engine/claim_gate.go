package engine

import (
	"cmp"
	"slices"
	"sync"
)

// claimGate puts the jobs of the claims on one queue in the order
// the store took them. With two claims in flight on a backlog
// (claimsPerQueue), either may reach the store first and either may come
// back first; dispatched as each returned, the jobs of the one that took
// later jobs would often start before older jobs of the same priority or
// group. So a claim that returns while another on its queue is still at
// the store holds its result, and once none is, the results held are
// delivered oldest claim first: by token, which grows with every claim on
// a queue (store.Store's Claim). A claim sent after that delivery reaches
// the store after those claims took their jobs, so it took later ones.
//
// A claim that waits stays in flight for the fetch loop (its room
// reserved, its queue busy, so no claim joins the wait), and waits no
// longer than the other claim, which claimTimeout bounds.
type claimGate struct {
	mu     sync.Mutex
	atWork int         // claims on the queue sent and not back from the store
	held   []claimDone // claims back from the store, waiting for the others
}

// gate returns the gate of queue qi, counting a claim about to be sent on
// it. Called by the fetch loop alone.
func (f *fetcher) gate(qi int) *claimGate {
	if f.gates == nil {
		f.gates = make([]*claimGate, len(f.due))
	}
	g := f.gates[qi]
	if g == nil {
		g = new(claimGate)
		f.gates[qi] = g
	}
	g.mu.Lock()
	g.atWork++
	g.mu.Unlock()
	return g
}

// deliver sends d, the result of a claim sent through g, to out once no
// other claim of g's queue is at the store, with the results held until
// then, oldest claim first. out has room for every claim in flight, so the
// sends do not wait for the fetch loop.
// A nil gate (Config.OrderedStarts off) sends d at once.
func (g *claimGate) deliver(d claimDone, out chan<- claimDone) {
	if g == nil {
		out <- d
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.atWork--
	if g.atWork > 0 {
		g.held = append(g.held, d)
		return
	}
	if len(g.held) == 0 {
		out <- d
		return
	}
	g.held = append(g.held, d)
	slices.SortStableFunc(g.held, func(a, b claimDone) int { return cmp.Compare(firstToken(a), firstToken(b)) })
	for i, h := range g.held {
		out <- h
		g.held[i] = claimDone{}
	}
	g.held = g.held[:0]
}

// firstToken returns the token of a claim's first job, 0 when it took none.
func firstToken(d claimDone) uint64 {
	if len(d.res.Jobs) == 0 {
		return 0
	}
	return d.res.Jobs[0].Token
}
