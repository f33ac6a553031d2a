// Package pgtest runs throwaway PostgreSQL clusters for the tests and
// benchmarks of the outbox: initdb in a temporary directory, then the
// postgres server on a free loopback port, killed with the process that
// started it, removed when stopped.
//
// Tests call DB, which gives each test a fresh database on one cluster
// shared by the test binary (Main stops it at the end), or on the server
// named by HOPPER_TEST_POSTGRES (a URL of a role that may create
// databases):
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.DB(t)
//		...
//	}
//
// initdb and postgres are looked up on PATH, then in /usr/local/bin,
// /usr/lib/postgresql/*/bin (Debian, newest version first) and
// /usr/local/pgsql/bin. PostgreSQL refuses to run as root: when the process
// runs as root, the cluster runs as the "postgres" user. When no
// PostgreSQL is found, a test is skipped, except under CI=true, when it
// fails.
package pgtest
