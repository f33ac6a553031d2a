package memstore

// readyList is the ready state of a queue: an intrusive doubly linked list of
// jobs, first in first out. Pushing, popping and removing any job are O(1)
// and allocate nothing.
type readyList struct {
	head, tail *job
	n          int
}

// pushBack appends j.
func (l *readyList) pushBack(j *job) {
	j.prev, j.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = j
	} else {
		l.head = j
	}
	l.tail = j
	l.n++
}

// pushFront prepends j.
func (l *readyList) pushFront(j *job) {
	j.prev, j.next = nil, l.head
	if l.head != nil {
		l.head.prev = j
	} else {
		l.tail = j
	}
	l.head = j
	l.n++
}

// remove takes j, which must be in l, out of it.
func (l *readyList) remove(j *job) {
	if j.prev != nil {
		j.prev.next = j.next
	} else {
		l.head = j.next
	}
	if j.next != nil {
		j.next.prev = j.prev
	} else {
		l.tail = j.prev
	}
	j.prev, j.next = nil, nil
	l.n--
}

// popFront removes and returns the first job, or nil when l is empty.
func (l *readyList) popFront() *job {
	j := l.head
	if j != nil {
		l.remove(j)
	}
	return j
}
