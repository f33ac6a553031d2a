// Package redistest runs throwaway Redis servers for the tests of hopper:
// one redis-server (Start) or a local three-master Redis Cluster
// (StartCluster), with replicas if asked (Replicas), each in a temporary
// directory on free loopback ports, stopped when the test or the test
// binary ends. StartTLS runs a private
// server that speaks only TLS and requires client certificates, with a
// throwaway certificate authority made by the openssl command (MakeCerts).
//
// # Shared and private servers
//
// Starting a server takes tens of milliseconds and a cluster a few seconds,
// so a test binary that calls Main from its TestMain shares one server (and
// one cluster) between all its tests; they keep apart by using a fresh key
// prefix each (Prefix). Without Main, or with an option that changes the
// server (Args, Private), a test gets a server of its own, stopped in its
// t.Cleanup.
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		srv := redistest.Start(t)
//		rdb := srv.Client(t)
//		prefix := redistest.Prefix(t)
//		...
//	}
//
// # Cluster failover
//
// StartCluster(t, Replicas(1), NodeTimeout(time.Second)) gives a test a
// private cluster of three masters with a replica each. Nodes and
// MasterForSlot show who serves what, read live from CLUSTER NODES;
// KillAddr crashes a node (SIGKILL); WaitFailover waits until the dead
// master's replica serves its slots and every node agrees, and tells when
// the promotion happened (about two seconds after the kill with a one
// second node timeout); RestartAddr brings the dead node back, as a replica
// of its successor, and WaitHealthy waits until it has rejoined and synced.
//
//	c := redistest.StartCluster(t, redistest.Replicas(1), redistest.NodeTimeout(time.Second))
//	master := c.MasterForSlot(t, slot)
//	killed := time.Now()
//	c.KillAddr(t, master)
//	newMaster, promotedAt := c.WaitFailover(t, ctx, master)
//	t.Logf("failover took %v", promotedAt.Sub(killed))
//	c.RestartAddr(t, master)
//	c.WaitHealthy(t, ctx)
//
// Replication is asynchronous: a write the replica had not received when
// its master died is lost (WAIT on the writing connection first to rule
// that out). A go-redis ClusterClient made before the failover keeps
// sending the dead master's slots to its address until it reloads its slot
// map: on a MOVED reply or every ClusterStateReloadInterval (60 s by
// default), not on connection errors; ReloadState makes it reload now.
//
// # Environment
//
//   - HOPPER_TEST_REDIS=host:port makes shared servers use that server
//     instead of starting one. Tests that need a private server still start
//     their own.
//   - HOPPER_TEST_REDIS_CLUSTER=host:port[,host:port...] does the same for
//     StartCluster.
//   - When redis-server (or redis-cli, for a cluster) is not on PATH, a test
//     that needs it is skipped with a message saying so, except when CI=true:
//     then it fails, because CI must never skip the Redis tests.
//
// Nothing here sleeps to synchronise: start-up waits poll the server with a
// deadline.
package redistest
