package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

var _ store.ServerInformer = (*Store)(nil)

// memorySamples is how many elements of a collection MEMORY USAGE samples
// per key: Redis's own default, enough for an estimate and cheap on a
// hash of millions of jobs.
const memorySamples = 5

// ServerInfo reads INFO (server, clients, memory, persistence,
// replication) and CONFIG GET appendfsync on every node — each master and
// replica of a Cluster — and estimates each queue's memory with MEMORY
// USAGE … SAMPLES 5 on each of its keys, for the first
// store.MaxQueuesMeasured queues by name, in one pipeline. See
// store.ServerInformer.
func (s *Store) ServerInfo(ctx context.Context) (*store.ServerInfo, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	var clients []*redis.Client
	var mu sync.Mutex
	collect := func(_ context.Context, c *redis.Client) error {
		mu.Lock()
		clients = append(clients, c)
		mu.Unlock()
		return nil
	}
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachShard(ctx, collect)
	case *redis.Ring:
		err = c.ForEachShard(ctx, collect)
	case *redis.Client:
		clients = append(clients, c)
	default:
		return nil, fmt.Errorf("redisstore: unsupported client type %T", s.rdb)
	}
	if err != nil {
		return nil, wrap("server info", err)
	}
	out := &store.ServerInfo{Nodes: make([]store.NodeInfo, len(clients)), Samples: memorySamples}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { out.Nodes[i] = nodeInfo(ctx, c) })
	}
	wg.Wait()
	slices.SortFunc(out.Nodes, func(a, b store.NodeInfo) int {
		return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Addr, b.Addr))
	})
	reached := false
	for _, n := range out.Nodes {
		reached = reached || n.Err == ""
	}
	if !reached && len(out.Nodes) > 0 {
		return nil, wrap("server info", errors.New(out.Nodes[0].Err))
	}
	if err := s.queueMemory(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// queueMemory fills in out's per-queue estimate.
func (s *Store) queueMemory(ctx context.Context, out *store.ServerInfo) error {
	queues, err := s.ListQueues(ctx)
	if err != nil {
		return err
	}
	if len(queues) == 0 {
		return nil
	}
	out.QueuesTotal = len(queues)
	queues = queues[:min(len(queues), store.MaxQueuesMeasured)]
	out.QueuesMeasured = len(queues)
	cmds := make([][]*redis.IntCmd, len(queues))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, q := range queues {
			for _, k := range s.queueKeys(q).all {
				cmds[i] = append(cmds[i], p.MemoryUsage(ctx, k, memorySamples))
			}
		}
		return nil
	})
	for _, cs := range cmds {
		for _, c := range cs {
			if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) && (err == nil || errors.Is(err, redis.Nil)) {
				err = e
			}
		}
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		// Not fatal: the nodes' INFO is still worth showing.
		s.opts.Logger.Warn("redisstore: estimating queue memory failed", "error", err)
		out.QueuesErr = "the server refused or failed MEMORY USAGE (the log has the detail)"
		out.QueuesMeasured = 0
		return nil
	}
	for i, q := range queues {
		m := store.QueueMemory{Queue: q}
		for _, c := range cmds[i] {
			if n, err := c.Result(); err == nil {
				m.Bytes += n
				m.Keys++
			}
		}
		out.Queues = append(out.Queues, m)
	}
	s.groupListsMemory(ctx, out.Queues)
	slices.SortStableFunc(out.Queues, func(a, b store.QueueMemory) int { return cmp.Compare(b.Bytes, a.Bytes) })
	return nil
}

// nodeInfo reads one node's INFO; a failure is in its Err.
func nodeInfo(ctx context.Context, c *redis.Client) store.NodeInfo {
	n := store.NodeInfo{Addr: c.Options().Addr}
	raw, err := c.Info(ctx, "server", "clients", "memory", "persistence", "replication").Result()
	if err != nil {
		n.Err = err.Error()
		return n
	}
	f := parseInfoFields(raw)
	num := func(k string) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
	n.Version, n.Mode = f["redis_version"], f["redis_mode"]
	n.Uptime = time.Duration(num("uptime_in_seconds")) * time.Second
	n.UsedMemory, n.PeakMemory, n.MaxMemory = num("used_memory"), num("used_memory_peak"), num("maxmemory")
	n.MaxMemoryPolicy = f["maxmemory_policy"]
	n.Clients, n.BlockedClients = num("connected_clients"), num("blocked_clients")
	n.AOF = f["aof_enabled"] == "1"
	if ts := num("rdb_last_save_time"); ts > 0 {
		n.RDBLastSave = time.Unix(ts, 0)
	}
	n.RDBLastStatus, n.RDBChangesSinceSave = f["rdb_last_bgsave_status"], num("rdb_changes_since_last_save")
	n.Role = f["role"]
	if n.Role == "slave" {
		n.Role = "replica"
		n.Master = f["master_host"] + ":" + f["master_port"]
		n.MasterLinkUp = f["master_link_status"] == "up"
	}
	n.Replicas = int(num("connected_slaves"))
	if cfg, err := c.ConfigGet(ctx, "appendfsync").Result(); err == nil {
		n.AOFFsync = cfg["appendfsync"]
	}
	return n
}

// parseInfoFields reads INFO's "key:value" lines.
func parseInfoFields(raw string) map[string]string {
	f := map[string]string{}
	for line := range strings.SplitSeq(raw, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(k, "#") {
			f[k] = v
		}
	}
	return f
}

// groupSample is how many of a grouped queue's lists groupListsMemory
// measures.
const groupSample = 16

// groupListsMemory adds to each queue's estimate its groups' lists of
// ready jobs (layout 2), keys named after the groups, which keyTable does
// not list: it measures the lists of the first groupSample groups in the
// rotation (the groups with ready jobs) and scales their bytes per job to
// the jobs in the lists (the marks' gn). Two round trips, for the queues
// that have such lists; a failure leaves the estimates without them.
func (s *Store) groupListsMemory(ctx context.Context, qs []store.QueueMemory) {
	counts := make([]*redis.StringCmd, len(qs))
	rots := make([]*redis.StringSliceCmd, len(qs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, m := range qs {
			k := s.queueKeys(m.Queue)
			counts[i] = p.HGet(ctx, k.marks, "gn")
			rots[i] = p.LRange(ctx, k.all[keyIndex["g_rot"]], 0, groupSample-1)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return
	}
	type sample struct {
		at         int
		jobs       int64
		usage, len []*redis.IntCmd
	}
	var samples []*sample
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, m := range qs {
			n, _ := counts[i].Int64()
			names, _ := rots[i].Result()
			if n <= 0 || len(names) == 0 {
				continue
			}
			sm := &sample{at: i, jobs: n}
			root := s.queueKeys(m.Queue).all[keyIndex["g_ready"]]
			for _, g := range names {
				if g == "" {
					continue // the ungrouped jobs' turn
				}
				sm.usage = append(sm.usage, p.MemoryUsage(ctx, root+":"+g, memorySamples))
				sm.len = append(sm.len, p.LLen(ctx, root+":"+g))
			}
			samples = append(samples, sm)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return
	}
	for _, sm := range samples {
		var bytes, jobs, lists int64
		for j := range sm.usage {
			u, uerr := sm.usage[j].Result()
			l, lerr := sm.len[j].Result()
			if uerr == nil && lerr == nil && l > 0 {
				bytes, jobs, lists = bytes+u, jobs+l, lists+1
			}
		}
		if jobs == 0 {
			continue
		}
		m := &qs[sm.at]
		m.Bytes += bytes * sm.jobs / jobs
		// The lists: as many as the jobs at the sample's jobs per list.
		m.Keys += int(max(sm.jobs*lists/jobs, 1))
	}
}
