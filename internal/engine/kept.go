package engine

import "sync"

// keptGoroutines runs a worker's store calls that each had a goroutine
// of their own (a claim, a finish flush) on goroutines kept from one call
// to the next. A new goroutine starts with a small stack, and a store
// call (go-redis's hooks, pool and reader under it) outgrows it: the
// runtime copied each claim's and each flush's stack twice or more,
// about 5 % of a drain's client CPU (pprof, bench/instr -drain). A kept
// goroutine keeps the stack it grew until the collector shrinks it.
//
// Go never blocks: it hands the call to an idle kept goroutine or starts
// one more. stop makes the idle ones exit and waits for the busy ones to
// finish their call; a call given after stop still runs, on a goroutine
// that then exits. Safe for concurrent use.
type keptGoroutines struct {
	work chan func() // unbuffered: a send succeeds only to an idle goroutine
	quit chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

func newKeptGoroutines() *keptGoroutines {
	return &keptGoroutines{work: make(chan func()), quit: make(chan struct{})}
}

// Go runs f on an idle kept goroutine, or on a new one.
func (k *keptGoroutines) Go(f func()) {
	select {
	case k.work <- f:
	default:
		k.wg.Add(1)
		go k.run(f)
	}
}

// run runs f, then the calls handed to it, until stop.
func (k *keptGoroutines) run(f func()) {
	defer k.wg.Done()
	for {
		f()
		select {
		case f = <-k.work:
		case <-k.quit:
			return
		}
	}
}

// stop ends the kept goroutines once their calls returned, and waits for
// them.
func (k *keptGoroutines) stop() {
	k.once.Do(func() { close(k.quit) })
	k.wg.Wait()
}
