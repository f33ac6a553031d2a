// Package retrylog keeps the loops that retry a failing store call (a
// worker's claims and heartbeats, a scheduler's maintenance) from logging
// every retry of an outage: while Redis restarts or a Cluster fails over,
// a worker retried each queue's claim a dozen times and logged each.
//
// An Outage logs the first failure of an outage, then at most one failure
// every Every, saying how many it left out, and, at the first success
// after an outage of more than one failure, one line saying that the call
// works again, after how many failures and how long.
package retrylog

import "time"

// Every is the least time between two logged failures of one outage.
const Every = 30 * time.Second

// Outage is the failures of one retried call since its last success. Its
// zero value is a call that has not failed. It is not safe for concurrent
// use: each loop keeps its own.
type Outage struct {
	fails    int       // failures since the last success
	since    time.Time // the first of them
	loggedAt time.Time // when a failure was last logged
	left     int       // failures not logged since then
}

// Failed records a failure at now and reports whether to log it, and, when
// it does, how many failures since the last one logged were not.
func (o *Outage) Failed(now time.Time) (log bool, omitted int) {
	o.fails++
	if o.fails == 1 {
		o.since, o.loggedAt, o.left = now, now, 0
		return true, 0
	}
	if now.Sub(o.loggedAt) < Every {
		o.left++
		return false, 0
	}
	omitted, o.loggedAt, o.left = o.left, now, 0
	return true, omitted
}

// Recovered records a success at now. It reports whether to log that the
// call works again (after more than one failure: a lone failure's line
// says enough), with the outage's failures and how long it lasted.
func (o *Outage) Recovered(now time.Time) (log bool, fails int, lasted time.Duration) {
	if o.fails == 0 {
		return false, 0, 0
	}
	fails, lasted = o.fails, now.Sub(o.since)
	*o = Outage{}
	return fails > 1, fails, lasted
}
