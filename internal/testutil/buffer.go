package testutil

import (
	"strings"
	"sync"
)

// SyncBuffer collects what a logger or a command writes from several
// goroutines: Write and String are safe for concurrent use. Its zero
// value is an empty buffer ready to use.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p; it never fails.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
