// Package redistest runs throwaway Redis servers for the tests of hopper:
// one redis-server (Start) or a local three-master Redis Cluster
// (StartCluster), each in a temporary directory on free loopback ports,
// stopped when the test or the test binary ends. StartTLS runs a private
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
