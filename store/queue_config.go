package store

// WithoutIdlePeriods returns c without a RatePeriod that has no RateLimit
// (a GroupRatePeriod that has no GroupRateLimit) other than zero or
// DefaultRatePeriod: such a period does nothing, and NormalizeChange
// refuses one a change sets, but older versions could store one. A change
// to stored settings starts from these (hopper's
// Inspector.UpdateQueueConfig, the hopper command's queues set), so that
// it neither trips over the idle period nor brings it back to life by
// setting a limit alone, which then gets DefaultRatePeriod as on a queue
// that never had a period; a period the change sets without a limit is
// refused as on any queue.
func (c QueueConfig) WithoutIdlePeriods() QueueConfig {
	if c.RateLimit == 0 && c.RatePeriod != DefaultRatePeriod {
		c.RatePeriod = 0
	}
	if c.GroupRateLimit == 0 && c.GroupRatePeriod != DefaultRatePeriod {
		c.GroupRatePeriod = 0
	}
	return c
}
