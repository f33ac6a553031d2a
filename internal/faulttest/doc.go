// Package faulttest is hopper's fault-injection suite (issue 7,
// "Reliability"). It has no API: its tests run real worker processes (the
// test binary re-executed in the role "worker" of worker_test.go, through
// internal/proctest) against a redis-server each test starts, inject a fault
// (SIGKILL or SIGSTOP of a worker, a killed or restarted Redis, a faulty
// TCP link, skewed clocks, a full Redis, a lost cluster master, cluster
// failovers) and then check a ledger kept outside Redis: the producer's
// acknowledged enqueues and the claim, start, end and finish events the
// workers reported. The production-shape scenarios (issue "Production
// shapes") also measure: the commands an idle worker serving many queues
// sends (counted in the worker and by Redis's INFO commandstats), start
// latencies of bursts over many queues, wake-ups with a frozen consumer,
// and the isolation of healthy shards while one fails over.
//
// After things go quiet every scenario asserts that each acknowledged
// enqueue ended acked or in garbage, never both; that no job ran more often
// than once plus the faults that touched it (a lease that ran out with no
// fault injected counts as one only when its worker stalled or its
// renewals failed, as its ticks and renewal calls in the ledger show);
// that no state set is left non-empty; and that no per-job key is left in
// Redis. docs/faults.md lists the scenarios.
package faulttest
