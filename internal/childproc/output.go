package childproc

import (
	"bytes"
	"sync"
)

// Output collects a process's output: the goroutine that copies it writes
// while a test reads. The zero value is ready to use; it is safe for
// concurrent use.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Tail returns the last n bytes written.
func (o *Output) Tail(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.buf.Bytes()
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return string(s)
}
