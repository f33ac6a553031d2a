package main

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// masters returns the clients of every master rdb reaches.
func masters(ctx context.Context, rdb redis.UniversalClient) ([]*redis.Client, error) {
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		var mu sync.Mutex
		var out []*redis.Client
		err := c.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
			mu.Lock()
			out = append(out, n)
			mu.Unlock()
			return nil
		})
		slices.SortFunc(out, func(a, b *redis.Client) int { return strings.Compare(a.Options().Addr, b.Options().Addr) })
		return out, err
	case *redis.Client:
		return []*redis.Client{c}, nil
	}
	return nil, fmt.Errorf("unsupported client %T", rdb)
}

// readNode reads one master. It fails only when the node does not
// answer; what ACL refuses is left unknown.
func readNode(ctx context.Context, c *redis.Client) (nodeReading, error) {
	r := nodeReading{addr: c.Options().Addr}
	if err := c.Ping(ctx).Err(); err != nil {
		return r, fmt.Errorf("%s: %w", r.addr, err)
	}
	if _, _, err := net.SplitHostPort(r.addr); err != nil {
		// A Sentinel's failover client names no server ("FailoverClient"):
		// the master it reached says where it listens.
		if ci, err := c.ClientInfo(ctx).Result(); err == nil && ci.LAddr != "" {
			r.addr = ci.LAddr + ", through Sentinel"
		}
	}
	if raw, err := c.Info(ctx, "server", "memory", "persistence", "replication").Result(); err == nil {
		f := infoFields(raw)
		r.version, r.role, r.policy = f["redis_version"], f["role"], f["maxmemory_policy"]
		parts := strings.SplitN(r.version, ".", 3)
		if len(parts) >= 2 {
			r.major, _ = strconv.Atoi(parts[0])
			r.minor, _ = strconv.Atoi(parts[1])
		}
		r.cluster = f["redis_mode"] == "cluster"
		r.aofOn = f["aof_enabled"] == "1"
		r.used, _ = strconv.ParseInt(f["used_memory"], 10, 64)
		r.max, _ = strconv.ParseInt(f["maxmemory"], 10, 64)
		for i := 0; ; i++ {
			v, found := f["slave"+strconv.Itoa(i)]
			if !found {
				break
			}
			r.replicas = append(r.replicas, describeReplica(v))
		}
	}
	r.config = map[string]string{}
	for _, k := range []string{"maxmemory-policy", "appendonly", "appendfsync", "save", "cluster-require-full-coverage"} {
		v, err := c.ConfigGet(ctx, k).Result()
		if err != nil {
			r.configErr = err
			r.config = nil
			break
		}
		if val, found := v[k]; found {
			r.config[k] = val
		}
	}
	r.waitErr = c.Do(ctx, "WAIT", 0, 0).Err()
	r.skew, r.skewPlus, r.skewErr = measureSkew(ctx, c)
	r.latency = measureLatency(ctx, c)
	return r, nil
}

// describeReplica turns INFO's "ip=..,port=..,state=online,lag=0" into
// "ip:port online, lag 0 s".
func describeReplica(v string) string {
	f := map[string]string{}
	for kv := range strings.SplitSeq(v, ",") {
		if k, val, found := strings.Cut(kv, "="); found {
			f[k] = val
		}
	}
	return fmt.Sprintf("%s:%s %s, lag %s s", f["ip"], f["port"], f["state"], f["lag"])
}

// infoFields reads INFO's "key:value" lines.
func infoFields(raw string) map[string]string {
	f := map[string]string{}
	for line := range strings.SplitSeq(raw, "\n") {
		if k, v, found := strings.Cut(strings.TrimSpace(line), ":"); found && !strings.HasPrefix(k, "#") {
			f[k] = v
		}
	}
	return f
}

// measureSkew compares the server's TIME with this host's clock at the
// middle of the round trip, over 5 tries, keeping the one with the
// shortest round trip; half of it bounds the error.
func measureSkew(ctx context.Context, c *redis.Client) (skew, plus time.Duration, err error) {
	best := time.Duration(-1)
	for range 5 {
		sent := time.Now()
		t, err := c.Time(ctx).Result()
		rtt := time.Since(sent)
		if err != nil {
			return 0, 0, err
		}
		if best < 0 || rtt < best {
			best = rtt
			skew = t.Sub(sent.Add(rtt / 2))
		}
	}
	return skew, best / 2, nil
}

// measureLatency is the median round trip of 20 PINGs.
func measureLatency(ctx context.Context, c *redis.Client) time.Duration {
	var rtts []time.Duration
	for range 20 {
		sent := time.Now()
		if c.Ping(ctx).Err() != nil {
			continue
		}
		rtts = append(rtts, time.Since(sent))
	}
	if len(rtts) == 0 {
		return 0
	}
	slices.Sort(rtts)
	return rtts[len(rtts)/2]
}
