package retrylog

import (
	"testing"
	"time"
)

// An outage of failures every 100 ms for two minutes logs its first, then
// one every Every with how many it left out, and its end once; the next
// outage starts over.
func TestOutageLogsOncePerEvery(t *testing.T) {
	var o Outage
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logged, omittedSum, n := 0, 0, 0
	for at := time.Duration(0); at < 2*time.Minute; at += 100 * time.Millisecond {
		n++
		log, omitted := o.Failed(t0.Add(at))
		if at == 0 && (!log || omitted != 0) {
			t.Fatalf("the first failure: log %v omitted %d, want logged alone", log, omitted)
		}
		if log {
			logged++
			omittedSum += omitted
		}
	}
	if logged != 4 || logged+omittedSum+o.left != n {
		t.Fatalf("%d failures over 2 min: %d logged saying %d left out, %d since; want 4 (at 0, 30, 60, 90 s) accounting for every failure", n, logged, omittedSum, o.left)
	}
	log, fails, lasted := o.Recovered(t0.Add(2 * time.Minute))
	if !log || fails != n || lasted != 2*time.Minute {
		t.Fatalf("Recovered: %v, %d failures, %v; want logged, %d, 2m", log, fails, lasted, n)
	}
	if log, omitted := o.Failed(t0.Add(2*time.Minute + time.Second)); !log || omitted != 0 {
		t.Fatalf("the first failure of the next outage: %v, %d; want logged", log, omitted)
	}
	if log, _, _ := o.Recovered(t0.Add(3 * time.Minute)); log {
		t.Fatal("the end of an outage of one failure is logged; want only its failure")
	}
	if log, _, _ := o.Recovered(t0.Add(4 * time.Minute)); log {
		t.Fatal("a success after a success is logged")
	}
}
