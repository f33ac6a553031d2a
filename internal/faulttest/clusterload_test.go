package faulttest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
)

// clusterLoad is the set-up of the failover scenarios (11 and 12): a Redis
// Cluster of three masters with a replica each (node timeout 1 s,
// cluster-require-full-coverage no), perMaster queues on each master, and
// two workers serving them all, up.
type clusterLoad struct {
	c       *redistest.Cluster
	rdb     *redis.ClusterClient
	r       *run
	queues  []string
	owner   map[string]string // master address by queue
	workers []*proctest.Proc
}

// startClusterLoad starts a clusterLoad; o sets the workers' options, the
// addresses, prefix and queues aside.
func startClusterLoad(t *testing.T, perMaster int, o workerOpts) *clusterLoad {
	t.Helper()
	c := redistest.StartCluster(t, redistest.Replicas(1), redistest.NodeTimeout(time.Second),
		redistest.Args("--cluster-require-full-coverage", "no"))
	cl := &clusterLoad{c: c, rdb: c.Client(t)}
	cl.r = newRun(t, cl.rdb)
	cl.queues, cl.owner = spreadQueues(t, c, cl.r.prefix, perMaster)
	cl.r.queues = cl.queues
	o.Addr, o.Cluster, o.Prefix, o.Queues = strings.Join(c.AllAddrs(), ","), true, cl.r.prefix, strings.Join(cl.queues, ",")
	for i := range 2 {
		cl.workers = append(cl.workers, cl.r.startWorker("w"+strconv.Itoa(i), o))
	}
	for _, w := range cl.workers {
		w.WaitReady()
	}
	return cl
}

// failOver kills master victim with SIGKILL, records the fault, and waits
// (up to 30 s) until a replica took its place: when it was killed, the
// new master and when that was promoted.
func (cl *clusterLoad) failOver(t *testing.T, victim string) (killed time.Time, newMaster string, promotedAt time.Time) {
	t.Helper()
	cl.c.KillAddr(t, victim)
	killed = time.Now()
	cl.r.addFault("")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	newMaster, promotedAt = cl.c.WaitFailover(t, ctx, victim)
	return killed, newMaster, promotedAt
}
