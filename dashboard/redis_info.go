package dashboard

import (
	"fmt"
	"net/http"

	"github.com/hopperq/hopper/store"
)

func init() { pageNames = append(pageNames, "redis") }

// redisPage is the data of the Redis server page.
type redisPage struct {
	base
	// OK is false when the store reports on no server
	// (store.ServerInformer): the page says so.
	OK    bool
	Info  *store.ServerInfo
	Nodes []nodeView
	// Queues are the measured queues with their share of the largest.
	Queues []queueMemView
}

// nodeView is one node with its numbers formatted.
type nodeView struct {
	store.NodeInfo
	Used, Peak, Max string
	// Evicts warns that the policy may drop jobs at the limit.
	Evicts bool
}

// queueMemView is one queue's estimated memory.
type queueMemView struct {
	store.QueueMemory
	Size  string
	Share int // percent of the largest queue's
}

// serveRedis renders the store's servers: version, memory, clients,
// persistence, replication, per node, and the estimated memory of each
// queue.
func (d *dash) serveRedis(w http.ResponseWriter, r *http.Request) {
	p := redisPage{base: d.base(r, "Redis", "redis")}
	si, ok := store.As[store.ServerInformer](d.ins.Store())
	p.OK = ok
	if ok {
		info, err := si.ServerInfo(r.Context())
		if err != nil {
			d.storeError(w, r, "reading the server's info", err)
			return
		}
		p.Info = info
		for _, n := range info.Nodes {
			if n.Err != "" {
				d.cfg.Logger.Warn("dashboard: a Redis node could not be read", "addr", n.Addr, "error", n.Err)
			}
			p.Nodes = append(p.Nodes, nodeView{NodeInfo: n, Used: formatBytes(n.UsedMemory), Peak: formatBytes(n.PeakMemory),
				Max: formatBytes(n.MaxMemory), Evicts: n.MaxMemoryPolicy != "" && n.MaxMemoryPolicy != "noeviction"})
		}
		var top int64
		for _, q := range info.Queues {
			top = max(top, q.Bytes)
		}
		for _, q := range info.Queues {
			v := queueMemView{QueueMemory: q, Size: formatBytes(q.Bytes)}
			if top > 0 {
				v.Share = int(q.Bytes * 100 / top)
			}
			p.Queues = append(p.Queues, v)
		}
	}
	d.render(w, r, http.StatusOK, "redis", p)
}

// formatBytes renders a size in bytes with binary units: "512 B",
// "1.5 KiB", "3.2 GiB".
func formatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n), ""
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v /= 1024
		unit = u
		if v < 1024 {
			break
		}
	}
	if v < 10 {
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}
