package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net"
	"slices"
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
// A lost claim may reach the server after the take-back that looks for it
// (held up on a link that heals, its bytes sent again by TCP): a claim
// whose note is not there is asked for again at each Claim until twice its
// lease has passed since it was sent (lostWait). One whose slot holds a
// later claim's note was written over, and is dropped; so is one a later
// claim that took jobs wrote over (notedOver).
//
// What it costs: a claim that takes jobs runs one SET of a short string
// with an expiry (about 21,000 of redis-server's instructions, counted
// with bench/instr/callgrind.sh), a claim that takes none nothing; a Store
// keeps at most claimSlots such keys a queue, each for as long as a
// lease.

// claimSlots is how many notes of its last claims a Store keeps on a
// queue: a lost claim's note stays until a claim of the Store on the queue
// claimSlots claims later takes jobs.
const claimSlots = 8

// maxLost bounds the lost claims a Store keeps for one queue: more only
// come from a link that fails every claim, whose notes claimSlots bounds
// anyway.
const maxLost = 4 * claimSlots

// lostClaim is a claim whose reply the Store never read.
type lostClaim struct {
	queue string // the queue or partition it claimed from
	seq   uint64 // the Store's count of its claims when it made it
	// until is when the Store stops asking for a claim whose note it has
	// not found: twice the lease after the claim was sent (lostWait).
	until time.Time
	taken []string
}

// lostWait is how long after it was sent the Store asks for a lost claim
// whose note it has not found: a claim held up on the way may reach the
// server late; twice its lease covers one that arrives within a lease of
// being sent, and its note then lasts a lease more.
func lostWait(lease time.Duration) time.Duration { return 2 * lease }

// lostClaims holds a Store's lost claims by the queue Claim was called
// on (a partitioned queue's under its name, not its partitions'). Safe for
// concurrent use; its zero value is ready.
type lostClaims struct {
	n  atomic.Int32 // claims held: the usual zero costs Claim one load
	mu sync.Mutex
	m  map[string][]*lostClaim
}

// note adds a lost claim of queue, keeping the newest maxLost.
func (l *lostClaims) note(queue string, c *lostClaim) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string][]*lostClaim)
	}
	cs := append(l.m[queue], c)
	if len(cs) > maxLost {
		cs = cs[len(cs)-maxLost:]
	}
	l.m[queue] = cs
	l.count()
}

// notedOver drops the lost claims of queue whose note the claim seq, which
// took jobs from partition (the queue itself when not partitioned), wrote
// over: those of its slot made before it. (One being taken back is not
// in the map: the take-back finds the note written over.)
func (l *lostClaims) notedOver(queue, partition string, seq uint64) {
	if l.n.Load() == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[queue] = slices.DeleteFunc(l.m[queue], func(c *lostClaim) bool {
		return c.queue == partition && c.seq < seq && c.seq%claimSlots == seq%claimSlots
	})
	if len(l.m[queue]) == 0 {
		delete(l.m, queue)
	}
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
	if len(cs) > maxLost {
		cs = cs[len(cs)-maxLost:]
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
// client never sent whole (a closed client, no connection from the pool,
// a connection that could not be made, a write that failed: Redis runs a
// command only once it has all of it, and go-redis drops the connection).
func mayHaveRun(err error) bool {
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return false
	}
	if op, ok := errors.AsType[*net.OpError](err); ok && (op.Op == "dial" || op.Op == "write") {
		return false
	}
	return !errors.Is(err, redis.ErrClosed) && !errors.Is(err, redis.ErrPoolTimeout)
}

// takeBack returns up to req.Max jobs of the Store's lost claims on
// req.Queue (its partitions' included), their leases renewed to
// req.Lease, oldest claim first, with one round trip for all of them. A
// lost claim stays for the next Claim while it may have jobs left, while
// its take-back failed on the way, and while its note has not been found
// within lostWait. It returns the first error with the jobs it took back.
func (s *Store) takeBack(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	var out store.ClaimResult
	if s.lost.n.Load() == 0 {
		return out, nil
	}
	cs := s.lost.take(req.Queue)
	if len(cs) == 0 {
		return out, nil
	}
	calls := make([]*evalCall, len(cs))
	for i, c := range cs {
		args := make([]any, 0, 5+len(c.taken))
		args = append(args, s.claimer, c.seq%claimSlots, c.seq, mstime.Ceil(req.Lease), req.Max)
		for _, id := range c.taken {
			args = append(args, id)
		}
		calls[i] = s.queueCall(fullScript("takeback"), c.queue, args...)
	}
	s.runAll(ctx, calls, nil)
	now := time.Now()
	var keep []*lostClaim
	var firstErr error
	handedBack := 0
	for i, c := range cs {
		jobs, rated, more, err := s.tookBack(ctx, c, calls[i].cmd, now)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if more {
			keep = append(keep, c)
		}
		if rated {
			n, err := s.handBack(ctx, c, jobs)
			handedBack += n
			if err != nil && firstErr == nil {
				firstErr = err
			}
			continue
		}
		if n := min(len(jobs), req.Max-len(out.Jobs)); n > 0 {
			out.Jobs = append(out.Jobs, jobs[:n]...)
			for _, j := range jobs[:n] {
				c.taken = append(c.taken, j.ID)
			}
		}
	}
	s.lost.putBack(req.Queue, keep)
	if n := len(out.Jobs); n > 0 {
		s.opts.Logger.Warn("redisstore: took back the jobs of a claim whose reply was lost; they run now, on the attempt that claim counted",
			"queue", req.Queue, "jobs", n)
	}
	if handedBack > 0 {
		s.opts.Logger.Warn("redisstore: handed the jobs of a claim whose reply was lost back to the head of the queue, their attempt not counted: "+
			"its rate limit counted them when that claim ran, and counts them again as they are claimed",
			"queue", req.Queue, "jobs", handedBack)
	}
	return out, firstErr
}

// handBack releases jobs, taken back from lost claim c of a rate-limited
// queue, to the head of their queue, their attempt not counted, and marks
// those it released taken; it returns how many. A rate limit counts the
// jobs of a claim when the claim runs and bounds their starts by its
// guard (store.ClaimResult.StartWithin): the lost claim's jobs, started
// only now, would run beside the jobs counted now (an outside trial saw
// 10 starts within 0.2 s under a limit of 5 a second, after a partition
// healed). Claimed again, they are counted again. Those it failed to
// release stay in unack under c, their leases renewed, for the next
// take-back.
func (s *Store) handBack(ctx context.Context, c *lostClaim, jobs []*store.JobRecord) (int, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	reqs := make([]store.AttemptEnd, len(jobs))
	for i, j := range jobs {
		reqs[i] = store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: store.OutcomeRelease, Kind: j.Kind, Attempt: j.Attempt}
	}
	errs, err := s.Finish(ctx, reqs)
	if err != nil {
		return 0, err
	}
	n := 0
	var firstErr error
	for i, e := range errs {
		// A job whose claim no longer holds (deleted, or its lease
		// ended meanwhile) is no longer this claim's either.
		if e == nil || errors.Is(e, store.ErrLeaseLost) || errors.Is(e, store.ErrJobNotFound) {
			c.taken = append(c.taken, jobs[i].ID)
			if e == nil {
				n++
			}
		} else if firstErr == nil {
			firstErr = e
		}
	}
	return n, firstErr
}

// tookBack reads the reply of lost claim c's take-back at now: the jobs it
// can run (the caller marks those it returns as taken), whether the
// queue's rate limit counted them (rated: handBack's), and whether to ask
// again at the next Claim. Jobs whose stored value it cannot read go to
// garbage.
func (s *Store) tookBack(ctx context.Context, c *lostClaim, cmd *redis.Cmd, now time.Time) (jobs []*store.JobRecord, rated, more bool, err error) {
	vals, err := cmd.Slice()
	if err != nil {
		// Asked again after a failure that may clear (the link, the
		// server loading...); not after a refusal that needs an
		// operator.
		err = wrap("take back a claim of "+strconv.Quote(c.queue)+" whose reply was lost", err)
		return nil, false, mayHaveRun(cmd.Err()) || Temporary(err), err
	}
	if len(vals) == 0 {
		return nil, false, false, wrap("take back a claim of "+strconv.Quote(c.queue), errors.New("empty reply"))
	}
	if tag, ok := vals[0].(string); ok && len(vals) <= 2 {
		// No note of the claim: not there yet while it may still come,
		// or written over by a later claim.
		seq := uint64(0)
		if tag == "other" && len(vals) == 2 {
			v, _ := vals[1].(string)
			seq, _ = strconv.ParseUint(v, 10, 64)
		}
		return nil, false, seq <= c.seq && now.Before(c.until), nil
	}
	res, bad, err := decodeClaim(c.queue, vals)
	if err != nil {
		return nil, false, false, err
	}
	for _, b := range bad {
		c.taken = append(c.taken, b.id)
	}
	if len(bad) > 0 {
		s.buryUndecodable(ctx, c.queue, bad)
	}
	return res.Jobs, res.StartWithin > 0, len(res.Jobs)+len(bad) > 0, nil
}
