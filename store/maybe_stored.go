package store

import "errors"

// MayBeStored reports whether err, the error of an Enqueue (or of one job
// of it, EnqueueResult.Err), leaves its jobs possibly stored all the same:
// the request reached the store and only the reply was lost (a read
// timeout on a link that stopped answering, a connection closed under
// the call), or the caller stopped waiting once it was sent. Enqueueing
// the same IDs again is then safe: a stored job comes back as a
// duplicate. A store says so by an error in err's chain with a method
// MayBeStored() bool that returns true (redisstore's do, and their text
// says "may be stored"); an error without one, or nil, reports false: the
// store took nothing, or said nothing of it.
func MayBeStored(err error) bool {
	var m interface{ MayBeStored() bool }
	return errors.As(err, &m) && m.MayBeStored()
}
