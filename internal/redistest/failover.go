package redistest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// failoverPoll is how often WaitFailover looks: often enough that the
// promotion time it reports is within a few milliseconds of the truth.
const failoverPoll = 10 * time.Millisecond

// WaitFailover waits until a replica has taken over from the master at
// deadAddr, ended by KillAddr or KillNode: every slot the master served
// when it was killed is served by one other node, every running node maps
// those slots to it and reports cluster_state:ok. It returns that node's
// address and promotedAt, the time (time.Now) at which WaitFailover first
// saw it serve the slots; compare it with a time.Now taken before the kill
// to measure the failover. Redis promotes the replica about one to two
// node timeouts (NodeTimeout) after the kill. WaitFailover fails t when ctx
// ends first, when deadAddr was not killed with KillAddr or KillNode, or
// when it served no slots then.
func (c *Cluster) WaitFailover(t testing.TB, ctx context.Context, deadAddr string) (newMaster string, promotedAt time.Time) {
	t.Helper()
	c.requirePrivate(t, "WaitFailover")
	c.mu.Lock()
	rec, ok := c.killed[deadAddr]
	c.mu.Unlock()
	switch {
	case !ok:
		t.Fatalf("redistest: WaitFailover(%s): not a node ended with KillAddr or KillNode (since its last restart)", deadAddr)
	case rec.err != nil:
		t.Fatalf("redistest: WaitFailover(%s): what the node served is unknown: %v", deadAddr, rec.err)
	case len(rec.node.Slots) == 0:
		t.Fatalf("redistest: WaitFailover(%s): the node served no slots when it was killed (%v), so nothing fails over", deadAddr, rec.node)
	}
	var last error
	for {
		views, errs := c.views(ctx)
		now := time.Now()
		if newMaster == "" {
			if newMaster = promoted(views, rec.node); newMaster != "" {
				promotedAt = now
			}
		}
		switch {
		case newMaster == "":
			last = fmt.Errorf("no node claims its slots %v yet", rec.node.Slots)
		default:
			last = c.tookOver(ctx, views, errs, rec.node, newMaster)
		}
		if last == nil {
			return newMaster, promotedAt
		}
		select {
		case <-ctx.Done():
			t.Fatalf("redistest: WaitFailover(%s): %v; last: %v", deadAddr, ctx.Err(), last)
		case <-time.After(failoverPoll):
		}
	}
}

// promoted returns the address of a running node other than dead that
// serves, in its own view, every slot dead served; "" when there is none.
func promoted(views map[string]*view, dead Node) string {
	for addr, v := range views {
		if v.self.ID == dead.ID || v.self.Role != Master {
			continue
		}
		if servesAll(v.self.Node, dead.Slots) {
			return addr
		}
	}
	return ""
}

// servesAll reports whether n serves every slot of ranges.
func servesAll(n Node, ranges []SlotRange) bool {
	for _, r := range ranges {
		for s := r.Start; s <= r.End; s++ {
			if !n.Serves(s) {
				return false
			}
		}
	}
	return true
}

// tookOver checks that newMaster serves dead's slots in the view of every
// running node and that each reports cluster_state:ok.
func (c *Cluster) tookOver(ctx context.Context, views map[string]*view, errs []error, dead Node, newMaster string) error {
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	nm, ok := views[newMaster]
	if !ok {
		return fmt.Errorf("the new master %s does not answer", newMaster)
	}
	for addr, v := range views {
		l, ok := v.byID(nm.self.ID)
		if !ok || l.Role != Master || !servesAll(l.Node, dead.Slots) {
			return fmt.Errorf("%s does not see %s serve %v yet", addr, newMaster, dead.Slots)
		}
		rdb := nodeClient(addr)
		info, err := rdb.ClusterInfo(ctx).Result()
		_ = rdb.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		if !strings.Contains(info, "cluster_state:ok\r\n") {
			return fmt.Errorf("%s: cluster_state is not ok yet", addr)
		}
	}
	return nil
}

// WaitHealthy waits until the cluster has settled: every running node
// reports cluster_state:ok with all 16384 slots served and knows every
// node; no running node is flagged as failing; the nodes agree on who is
// a master and who replicates whom; and every running replica's link to
// its master is up (so a restarted node has rejoined and synced). Nodes
// that are down (KillAddr) are not waited for; once a replica took over
// their slots, the cluster is healthy without them. It fails t when ctx
// ends first.
func (c *Cluster) WaitHealthy(t testing.TB, ctx context.Context) {
	t.Helper()
	if err := c.waitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}
