// Package upgradetest holds the rolling-upgrade test: workers and
// producers built from an earlier commit of this repository and from this
// checkout share one Redis under load; the old workers are replaced one by
// one, the old producers stop, `hopper migrate up` runs, and the test
// checks that no job was lost, none ran twice to success and none is
// stuck, delayed jobs, retries, dead jobs, a schedule, groups and
// workflows in flight included.
//
// The programs are prog (a producer and a worker, built in both trees)
// and evidence (what they write to Redis outside hopper's prefix, and the
// test reads back). Both use only the public API both commits have.
//
// The old tree is the library sources of OldCommit, read with git
// archive; a checkout without that commit (shallow, or no history) uses
// testdata/<commit>-src.tar.gz, which TestOldSourcesTarball keeps equal
// to git archive wherever the history is present. Regenerate it with
//
//	go test ./internal/upgradetest -run TestOldSourcesTarball -update
//
// The test runs in `go test ./...` and is skipped by -short. It needs
// git, go and redis-server; under CI=true a missing one fails it.
package upgradetest
