package store

import (
	"context"
	"reflect"
)

// ConfigSwapper is implemented by stores that change a queue's settings
// by compare-and-swap, so that operators changing different settings of
// one queue at once do not undo each other's change.
// hopper.Inspector.UpdateQueueConfig, PauseQueue and ResumeQueue use it;
// on a store without it they read and replace the settings (the last
// write wins). Both stores of this module implement it.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type ConfigSwapper interface {
	// CompareAndSwapQueueConfig replaces queue's settings with cfg, as
	// Admin.SetQueueConfig does, only when the settings stored now equal
	// old (QueueStats.Config as GetQueueStats reported it), in one atomic
	// step; it reports whether it replaced them. A false result changed
	// nothing: read the settings again and retry. cfg is normalized
	// (QueueConfig.Normalize) by the caller; an invalid queue or a cfg
	// Normalize refuses fails with an error wrapping ErrInvalidQueue or
	// ErrInvalidConfig (ValidateQueueConfig).
	CompareAndSwapQueueConfig(ctx context.Context, queue string, old, cfg QueueConfig) (bool, error)
}

// ApplyChanges sets in c every field whose value in edited differs from
// its value in base, and leaves the others as they are. An operator's
// form or flags filled from base (the settings as shown) thus change only
// what the operator changed, on top of settings that others may have
// changed since (hopper.Inspector.UpdateQueueConfig). Fields are found by
// reflection: a field added to QueueConfig is covered without a change
// here.
func (c *QueueConfig) ApplyChanges(base, edited QueueConfig) {
	dst := reflect.ValueOf(c).Elem()
	b, e := reflect.ValueOf(base), reflect.ValueOf(edited)
	for i := range dst.NumField() {
		if !b.Field(i).Equal(e.Field(i)) {
			dst.Field(i).Set(e.Field(i))
		}
	}
}
