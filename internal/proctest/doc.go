// Package proctest runs the child processes of hopper's multi-process
// tests: the root package's *_proc_test.go and the fault-injection suite
// (internal/faulttest). It knows nothing of Redis; the roles the children
// play are written and registered by the test packages that use them.
//
// # Children
//
// A child is the test binary itself, re-executed with HOPPER_TEST_CHILD set
// to its role, its name and the role's spec (JSON). The test package
// registers its roles from an init function (Register) and calls Main first
// thing in its TestMain: in a child, Main plays the role and exits; in the
// parent it returns at once.
//
//	func init() { proctest.Register("worker", runWorker) }
//
//	func TestMain(m *testing.M) {
//		proctest.Main()
//		os.Exit(m.Run())
//	}
//
// Re-executing the test binary, rather than building a command, keeps the
// child built exactly as the tests are (-race, -cover, tags) with no go
// toolchain or build step at test time, and lets a role use the test
// package's own types and helpers.
//
// # Protocol
//
// The parent writes commands to a child's stdin, one a line (Proc.Send; the
// role reads them with Child.Commands). The child reports Events on stdout,
// one JSON object a line, each line in a single write, so that a line is
// in the pipe whole or not at all when the child is killed; its logs go to
// stderr. A child's context ends, and it shuts down gracefully, when its
// stdin closes (the parent stopped it, or ended, or died) or on SIGTERM;
// on Linux the kernel also kills it when the parent dies, frozen or not.
// So a failed or killed parent leaves no process behind.
//
// # Parent
//
// A Group holds the children of one test and every Event they reported,
// in the order the parent read them (each child's in the order it wrote
// them). It starts children (Start, StartN), waits for them (Proc.WaitReady,
// Group.Eventually, which fails at once when a child died unasked), and
// controls them: Proc.Stop (graceful), Proc.Kill (SIGKILL), Proc.Freeze
// and Proc.Thaw (SIGSTOP, SIGCONT). When the test ends it stops every child
// still running, all at once, and fails the test for a child that exited
// with an error, reported an "error" event, or wrote a data race or a
// panic to stderr.
package proctest
