package childproc

import (
	"fmt"
	"sync"
	"testing"
)

func TestOutputConcurrent(t *testing.T) {
	var o Output
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprintf(&o, "%d", i)
				_ = o.Tail(3)
			}
		})
	}
	wg.Wait()
	if n := len(o.String()); n != 400 {
		t.Fatalf("%d bytes written, want 400", n)
	}
	if got := o.Tail(3); len(got) != 3 {
		t.Fatalf("Tail(3) = %q, want 3 bytes", got)
	}
}
