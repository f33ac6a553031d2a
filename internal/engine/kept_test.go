package engine

import (
	"sync"
	"testing"
)

// Every call handed to the kept goroutines runs, concurrent ones at
// once, one after the other on the goroutines kept, and one given after
// stop too; stop returns only once the calls that ran have returned.
func TestKeptGoroutines(t *testing.T) {
	k := newKeptGoroutines()
	var ran sync.WaitGroup
	// Eight calls that wait for each other: they cannot run one at a time.
	all := make(chan struct{})
	var started sync.WaitGroup
	started.Add(8)
	for range 8 {
		ran.Add(1)
		k.Go(func() {
			defer ran.Done()
			started.Done()
			<-all
		})
	}
	started.Wait()
	close(all)
	ran.Wait()
	for range 100 { // one after the other: taken by the idle goroutines
		ran.Add(1)
		k.Go(ran.Done)
		ran.Wait()
	}

	release := make(chan struct{})
	events := make(chan string, 2)
	k.Go(func() {
		<-release
		events <- "call returned"
	})
	stopped := make(chan struct{})
	go func() {
		k.stop()
		events <- "stop returned"
		close(stopped)
	}()
	close(release)
	if first := <-events; first != "call returned" {
		t.Fatalf("%s before the running call returned", first)
	}
	<-stopped
	late := make(chan struct{})
	k.Go(func() { close(late) })
	<-late
	k.stop()
}
