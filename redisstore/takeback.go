package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Claims whose reply was lost. A claim's script moves its jobs to unack
// whether or not its reply reaches the Store: a reply lost on the way (a
// link that drops or stalls, a read that times out) used to leave its
// jobs there with no handler, until their lease ran out and they ran
// again with an attempt counted (a job with no retries left went to
// garbage without ever running). So every claim that takes jobs leaves a
// note of itself (lua/claimed.lua: claim_note), a key named after the
// Store (claimer, random) and one of claimSlots slots it takes in turn,
// which holds the claim's seq (the Store's count of its claims), token and
// lease deadline, and expires with the lease. A claim that failed in a way
// that may have run is kept in lostClaims, and the Store's next Claim on
// the queue takes its jobs back first (lua/takeback.lua), their leases
// renewed: they run once, on the attempt the lost claim counted. A claim
// goes once (evalCall.once): go-redis would send it again by itself after
// a read timeout or a dropped connection, and that second claim would take
// more jobs beside those of the first, whose reply nobody reads.
//
// What it costs: a claim that takes jobs runs one SET of a short string
// with an expiry (about 21,000 of redis-server's instructions, counted
// with bench/instr/callgrind.sh), a claim that takes none nothing; a Store
// keeps at most claimSlots such keys a queue, each for as long as a
// lease.

// claimSlots is how many notes of its last claims a Store keeps on a
// queue: a lost claim is found as long as fewer than claimSlots claims of
// the Store on that queue came after it, which they cannot before the next
// Claim takes it back (a worker has at most two claims of a queue in
// flight).
const claimSlots = 8

// lostClaim is a claim whose reply the Store never read.
type lostClaim struct {
	queue string // the queue or partition it claimed from
	seq   uint64 // the Store's count of its claims when it made it
	taken []string
}

// lostClaims holds a Store's lost claims by the queue Claim was called
// on (a partitioned queue's under its name, not its partitions'). Safe for
// concurrent use; its zero value is ready.
type lostClaims struct {
	n  atomic.Int32 // claims held: the usual zero costs Claim one load
	mu sync.Mutex
	m  map[string][]*lostClaim
}

// note adds a lost claim of queue, keeping the newest claimSlots: an
// older one's note has been written over.
func (l *lostClaims) note(queue string, c *lostClaim) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string][]*lostClaim)
	}
	cs := append(l.m[queue], c)
	if len(cs) > claimSlots {
		cs = cs[len(cs)-claimSlots:]
	}
	l.m[queue] = cs
	l.count()
}

// take removes and returns queue's lost claims, so that two Claims of
// one queue never take back the same jobs; the caller puts back those
// with jobs left (putBack).
func (l *lostClaims) take(queue string) []*lostClaim {
	l.mu.Lock()
	defer l.mu.Unlock()
	cs := l.m[queue]
	delete(l.m, queue)
	l.count()
	return cs
}

// putBack returns cs to queue's lost claims, ahead of any noted since.
func (l *lostClaims) putBack(queue string, cs []*lostClaim) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string][]*lostClaim)
	}
	cs = append(cs, l.m[queue]...)
	if len(cs) > claimSlots {
		cs = cs[len(cs)-claimSlots:]
	}
	l.m[queue] = cs
	l.count()
}

func (l *lostClaims) count() {
	n := 0
	for _, cs := range l.m {
		n += len(cs)
	}
	l.n.Store(int32(n))
}

// newClaimer returns a name for a Store's notes of its claims: random,
// so that no two Stores (two processes with one WorkerConfig.ID
// included) share notes.
func newClaimer() string {
	var b [8]byte
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
	return hex.EncodeToString(b[:])
}

// claimNote returns the claim arguments that name the note of a new
// claim (claim.lua's ARGV 6 to 8), and its seq.
func (s *Store) claimNote() (args [3]any, seq uint64) {
	seq = s.claimSeq.Add(1)
	return [3]any{s.claimer, seq % claimSlots, seq}, seq
}

// mayHaveRun reports whether a failed call may have run on the server,
// its reply lost: anything but an error reply from Redis, or a call the
// client never sent (a closed client, no connection from the pool).
func mayHaveRun(err error) bool {
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return false
	}
	return !errors.Is(err, redis.ErrClosed) && !errors.Is(err, redis.ErrPoolTimeout)
}

// takeBack returns up to req.Max jobs of the Store's lost claims on
// req.Queue (its partitions' included), their leases renewed to
// req.Lease, oldest claim first. A lost claim with jobs left, or whose
// take-back failed on the way, stays for the next Claim. It returns the
// first error with the jobs it took back before it.
func (s *Store) takeBack(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	var out store.ClaimResult
	if s.lost.n.Load() == 0 {
		return out, nil
	}
	cs := s.lost.take(req.Queue)
	var keep []*lostClaim
	var err error
	for i, c := range cs {
		if err != nil || len(out.Jobs) >= req.Max {
			keep = append(keep, cs[i:]...)
			break
		}
		var jobs []*store.JobRecord
		var n int
		jobs, n, err = s.takeBackOne(ctx, c, req.Max-len(out.Jobs), req.Lease)
		if n > 0 || err != nil && mayHaveRun(err) {
			// Jobs may be left, or the link failed again: ask again. (A
			// refusal of the server's would be refused again.)
			keep = append(keep, c)
		}
		out.Jobs = append(out.Jobs, jobs...)
	}
	s.lost.putBack(req.Queue, keep)
	return out, err
}

// takeBackOne takes back up to most jobs of lost claim c: it returns
// those it can run, and how many the claim gave back (those with a stored
// value it could not read included, which go to garbage).
func (s *Store) takeBackOne(ctx context.Context, c *lostClaim, most int, lease time.Duration) ([]*store.JobRecord, int, error) {
	args := make([]any, 0, 5+len(c.taken))
	args = append(args, s.claimer, c.seq%claimSlots, c.seq, mstime.Ceil(lease), most)
	for _, id := range c.taken {
		args = append(args, id)
	}
	vals, err := s.runQ(ctx, fullScript("takeback"), c.queue, args...).Slice()
	if err != nil {
		return nil, 0, wrap("take back a claim of "+strconv.Quote(c.queue)+" whose reply was lost", err)
	}
	res, bad, err := decodeClaim(c.queue, vals)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range res.Jobs {
		c.taken = append(c.taken, r.ID)
	}
	for _, b := range bad {
		c.taken = append(c.taken, b.id)
	}
	if len(bad) > 0 {
		s.buryUndecodable(ctx, c.queue, bad)
	}
	n := len(res.Jobs) + len(bad)
	if n > 0 {
		s.opts.Logger.Warn("redisstore: took back the jobs of a claim whose reply was lost; they run now, on the attempt that claim counted",
			"queue", c.queue, "jobs", n)
	}
	return res.Jobs, n, nil
}
