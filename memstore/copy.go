package memstore

import "github.com/hopperq/hopper/store"

// cloneBytes returns a copy of b; nil stays nil, empty stays empty.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// copyNewJob returns j with its own Args and JobSpec.
func copyNewJob(j store.NewJob) store.NewJob {
	j.Args = cloneBytes(j.Args)
	j.JobSpec = j.JobSpec.Clone()
	return j
}

// cloneErrors returns a copy of e; nil stays nil.
func cloneErrors(e []store.AttemptError) []store.AttemptError {
	if e == nil {
		return nil
	}
	return append(make([]store.AttemptError, 0, len(e)), e...)
}

// copyRecord returns a deep copy of r: no slice or map is shared with it.
func copyRecord(r *store.JobRecord) *store.JobRecord {
	c := new(store.JobRecord)
	copyInto(c, r, nil)
	return c
}

// copyInto deep-copies r into dst. The args are copied into *buf when it is
// large enough (the slab of a batch), else into a new slice.
func copyInto(dst, r *store.JobRecord, buf *[]byte) {
	*dst = *r
	if r.Args != nil {
		if buf != nil && cap(*buf)-len(*buf) >= len(r.Args) {
			b := *buf
			n := len(b)
			b = append(b, r.Args...)
			dst.Args = b[n:len(b):len(b)]
			*buf = b
		} else {
			dst.Args = cloneBytes(r.Args)
		}
	}
	dst.JobSpec = r.JobSpec.Clone()
	dst.Errors = cloneErrors(r.Errors)
	dst.Result = cloneBytes(r.Result)
	if r.Progress != nil {
		dst.Progress = copyProgress(r.Progress)
	}
}

// batch holds deep copies of records allocated together: one slice of
// records and one buffer for all the args, so that a batch of n records costs
// a few allocations rather than a few per record. A caller that keeps one
// record keeps the batch's memory alive, which is fine for short-lived
// results such as claims.
type batch struct {
	recs []store.JobRecord
	out  []*store.JobRecord
	buf  []byte
}

// newBatch makes room for n records with argBytes bytes of args in all.
func newBatch(n, argBytes int) batch {
	return batch{
		recs: make([]store.JobRecord, n),
		out:  make([]*store.JobRecord, n),
		buf:  make([]byte, 0, argBytes),
	}
}

// set stores a deep copy of r as the i-th record.
func (b *batch) set(i int, r *store.JobRecord) {
	copyInto(&b.recs[i], r, &b.buf)
	b.out[i] = &b.recs[i]
}
