package redistest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Role is what a cluster node is: a master serving slots, or a replica of
// a master.
type Role string

// The roles of cluster nodes.
const (
	Master  Role = "master"
	Replica Role = "replica"
)

// SlotRange is the hash slots Start to End, both included.
type SlotRange struct{ Start, End int }

// String returns "Start-End", or "Start" for a single slot.
func (r SlotRange) String() string {
	if r.Start == r.End {
		return itoa(r.Start)
	}
	return itoa(r.Start) + "-" + itoa(r.End)
}

// Node is one node of a cluster as CLUSTER NODES describes it.
type Node struct {
	// Addr is the node's host:port.
	Addr string
	// ID is the node's 40-character cluster node ID, which it keeps across
	// restarts (it is in its nodes.conf).
	ID string
	// Role is master or replica.
	Role Role
	// Slots are the hash slots a master serves, in order; none for a
	// replica.
	Slots []SlotRange
	// MasterID and MasterAddr name the master a replica replicates; empty
	// for a master, and MasterAddr empty when no node knows the master's
	// address.
	MasterID, MasterAddr string
	// ConfigEpoch is the node's configuration epoch: when two masters
	// claim a slot, the one with the higher epoch has it.
	ConfigEpoch uint64
	// Up reports that the node answered CLUSTER NODES just now, so the
	// fields above are its own view of itself. For a node that did not
	// (killed, stopped, restarting) they are what another node knows of it.
	Up bool
	// Failed reports that a node that answered flags this one as fail: a
	// majority of masters agreed it is unreachable.
	Failed bool
}

// Serves reports whether the node serves slot, as a master.
func (n Node) Serves(slot int) bool {
	for _, r := range n.Slots {
		if r.Start <= slot && slot <= r.End {
			return true
		}
	}
	return false
}

// String describes the node on one line, for test failures.
func (n Node) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", n.Addr, n.Role)
	if n.Role == Replica {
		fmt.Fprintf(&b, " of %s", n.MasterAddr)
	}
	if len(n.Slots) > 0 {
		fmt.Fprintf(&b, " %v", n.Slots)
	}
	if !n.Up {
		b.WriteString(" down")
	}
	if n.Failed {
		b.WriteString(" failed")
	}
	return b.String()
}

// Nodes returns every node of the cluster (AllAddrs, in that order) as it
// is now: each running node's own view of itself, read with CLUSTER NODES,
// and for a node that does not answer, what the others know of it. It
// fails t when no node answers.
func (c *Cluster) Nodes(t testing.TB) []Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nodes, err := c.nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

// MasterForSlot returns the address of the master serving slot (0 to
// 16383) now: of the masters that claim it, the one with the highest
// configuration epoch, as the cluster decides. Until a dead master's
// replica takes over, that is the dead master (Nodes tells whether it is
// Up); "" when no node claims the slot. It fails t when no node answers.
func (c *Cluster) MasterForSlot(t testing.TB, slot int) string {
	t.Helper()
	if slot < 0 || slot >= clusterSlots {
		t.Fatalf("redistest: MasterForSlot(%d): slots are 0 to %d", slot, clusterSlots-1)
	}
	return masterForSlot(c.Nodes(t), slot)
}

// masterForSlot picks the claimant of slot among nodes with the highest
// epoch, preferring a node that is up.
func masterForSlot(nodes []Node, slot int) string {
	var best *Node
	for i := range nodes {
		n := &nodes[i]
		if n.Role != Master || !n.Serves(slot) {
			continue
		}
		if best == nil || n.ConfigEpoch > best.ConfigEpoch || n.ConfigEpoch == best.ConfigEpoch && n.Up && !best.Up {
			best = n
		}
	}
	if best == nil {
		return ""
	}
	return best.Addr
}

// nodes is Nodes with an error.
func (c *Cluster) nodes(ctx context.Context) ([]Node, error) {
	all := c.AllAddrs()
	views, errs := c.views(ctx)
	if len(views) == 0 {
		return nil, fmt.Errorf("redistest: no node of the cluster %v answers CLUSTER NODES: %w", all, errors.Join(errs...))
	}
	// What the nodes that answered know, in AllAddrs order so that the
	// result does not depend on map order.
	var ordered []*view
	for _, addr := range all {
		if v := views[addr]; v != nil {
			ordered = append(ordered, v)
		}
	}
	addrOf := map[string]string{}
	failed := map[string]bool{}
	for _, v := range ordered {
		for _, l := range v.lines {
			if _, ok := addrOf[l.ID]; !ok && l.Addr != "" {
				addrOf[l.ID] = l.Addr
			}
			if l.fail {
				failed[l.ID] = true
			}
		}
	}
	for _, v := range ordered {
		addrOf[v.self.ID] = v.addr // a node knows its own address best
	}
	nodes := make([]Node, 0, len(all))
	for _, addr := range all {
		n := Node{Addr: addr}
		if v := views[addr]; v != nil {
			n = v.self.Node
			n.Up = true
		} else {
			for _, v := range ordered {
				if l, ok := v.byAddr(addr); ok {
					n = l.Node
					break
				}
			}
		}
		n.Failed = failed[n.ID]
		if n.MasterID != "" {
			n.MasterAddr = addrOf[n.MasterID]
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// view is one node's CLUSTER NODES.
type view struct {
	addr  string     // the node asked
	self  nodeLine   // its own line (flag myself), with Addr set to addr
	lines []nodeLine // every line, self included
}

// byID returns the view's line for the node id.
func (v *view) byID(id string) (nodeLine, bool) {
	for _, l := range v.lines {
		if l.ID == id {
			return l, true
		}
	}
	return nodeLine{}, false
}

// byAddr returns the view's line for the node at addr.
func (v *view) byAddr(addr string) (nodeLine, bool) {
	for _, l := range v.lines {
		if l.Addr == addr {
			return l, true
		}
	}
	return nodeLine{}, false
}

// views reads CLUSTER NODES from every running node, returning the views
// of those that answered and the errors of those that did not.
func (c *Cluster) views(ctx context.Context) (map[string]*view, []error) {
	views := map[string]*view{}
	var errs []error
	for _, addr := range c.runningAddrs() {
		rdb := nodeClient(addr)
		v, err := readView(ctx, rdb, addr)
		_ = rdb.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
			continue
		}
		views[addr] = v
	}
	return views, errs
}

// readView reads CLUSTER NODES from the node at addr.
func readView(ctx context.Context, rdb *redis.Client, addr string) (*view, error) {
	text, err := rdb.ClusterNodes(ctx).Result()
	if err != nil {
		return nil, err
	}
	lines, err := parseClusterNodes(text)
	if err != nil {
		return nil, err
	}
	v := &view{addr: addr, lines: lines}
	for i := range v.lines {
		if v.lines[i].myself {
			// A node may not know its own IP yet (":port@bus").
			v.lines[i].Addr = addr
			v.self = v.lines[i]
			return v, nil
		}
	}
	return nil, fmt.Errorf("CLUSTER NODES has no myself line:\n%s", text)
}

// nodeLine is one line of CLUSTER NODES.
type nodeLine struct {
	Node   // Addr, ID, Role, Slots, MasterID, ConfigEpoch
	myself bool
	fail   bool // flag fail: a majority of masters agreed it is down
	pfail  bool // flag fail?: the viewer suspects it is down
}

// describe names the line's role for error messages.
func (l nodeLine) describe() string {
	if l.Role == Replica {
		return "replica of " + l.MasterID
	}
	return string(l.Role)
}

// parseClusterNodes parses the reply of CLUSTER NODES: per line
// "<id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv>
// <config-epoch> <link-state> <slot>...". Nodes still in handshake are left
// out; so are slots being imported or migrated ("[slot->-id]").
func parseClusterNodes(text string) ([]nodeLine, error) {
	var lines []nodeLine
	for raw := range strings.Lines(text) {
		f := strings.Fields(raw)
		if len(f) == 0 {
			continue
		}
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES line %q: want at least 8 fields", strings.TrimSpace(raw))
		}
		var l nodeLine
		l.ID = f[0]
		addr, _, _ := strings.Cut(f[1], "@")
		if !strings.HasPrefix(addr, ":") { // ":0" when the address is unknown
			l.Addr = addr
		}
		flags := strings.Split(f[2], ",")
		if slices.Contains(flags, "handshake") {
			continue
		}
		for _, fl := range flags {
			switch fl {
			case "myself":
				l.myself = true
			case "master":
				l.Role = Master
			case "slave":
				l.Role = Replica
			case "fail":
				l.fail = true
			case "fail?":
				l.pfail = true
			}
		}
		if f[3] != "-" {
			l.MasterID = f[3]
		}
		epoch, err := strconv.ParseUint(f[6], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("CLUSTER NODES line %q: config epoch: %w", strings.TrimSpace(raw), err)
		}
		l.ConfigEpoch = epoch
		for _, s := range f[8:] {
			if strings.HasPrefix(s, "[") {
				continue
			}
			lo, hi, isRange := strings.Cut(s, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a < 0 || b < a || b >= clusterSlots {
				return nil, fmt.Errorf("CLUSTER NODES line %q: bad slot range %q", strings.TrimSpace(raw), s)
			}
			l.Slots = append(l.Slots, SlotRange{a, b})
		}
		slices.SortFunc(l.Slots, func(x, y SlotRange) int { return x.Start - y.Start })
		lines = append(lines, l)
	}
	return lines, nil
}
