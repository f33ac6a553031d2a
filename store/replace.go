package store

// Replace is a set of flags: what a new job changes of the waiting job that
// holds its ID or unique key (NewJob.Replace). The zero value changes
// nothing.
//
//	holder's state      ReplaceArgs                 ReplaceRunAt
//	pending             args replaced               due time moved (to ready when due now)
//	retry               args replaced               due time moved (to ready when due now)
//	ready               args replaced               to pending when due later, else stays
//	unack (running)     never changed; a new job is added and takes the unique key
//	                    (with an ID held by the running job: a duplicate)
//	done, garbage       never changed: a duplicate  never changed: a duplicate
//
// A job keeps its ID, attempt count and error history, its enqueue time and
// its own unique key's hold when replaced. A workflow task's job is never
// replaced.
type Replace uint8

// The Replace flags.
const (
	// ReplaceArgs makes the waiting job the new one: kind, args and
	// options (JobSpec) but its unique key and hold (a ready job whose
	// priority or group changes goes to the back of its new level or
	// group).
	ReplaceArgs Replace = 1 << iota
	// ReplaceRunAt moves the waiting job's due time to the new job's
	// (RunAt, or Delay from the store's now): with a Delay, "run once, D
	// after the last enqueue" (debounce).
	ReplaceRunAt
	// ReplaceOnly never adds a job: when no waiting job holds the ID or
	// key, or the holder runs, nothing changes and the result is a
	// duplicate. Operators' edits use it (hopper.Inspector.UpdateJob), so
	// that editing a job that has just ended does not enqueue it again.
	ReplaceOnly
)
