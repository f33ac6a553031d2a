package memstore

// queueLock holds the lock of at most one queue while a batch call walks its
// requests, so that consecutive requests for the same queue take the lock
// once. It never holds two locks at a time, so batches cannot deadlock.
type queueLock struct {
	s *Store
	q *queue
}

// get returns the queue named name, locked, releasing the one held before
// when it is another. It creates the queue (marked seen) when create is
// true; otherwise it returns nil for a queue the store never created.
func (l *queueLock) get(name string, create bool) *queue {
	if l.q != nil && l.q.name == name {
		return l.q
	}
	l.release()
	var q *queue
	if create {
		q = l.s.queue(name, true)
	} else if q = l.s.lookup(name); q == nil {
		return nil
	}
	q.mu.Lock()
	l.q = q
	return q
}

// release unlocks the queue held, if any.
func (l *queueLock) release() {
	if l.q != nil {
		l.q.unlock()
		l.q = nil
	}
}
