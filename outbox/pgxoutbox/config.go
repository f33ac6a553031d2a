package pgxoutbox

import (
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/hopperq/hopper"
)

// Defaults and limits of RelayConfig.
const (
	// DefaultBatchSize is how many rows one relay transaction moves when
	// RelayConfig.BatchSize is zero.
	DefaultBatchSize = 1000
	// MaxBatchSize caps RelayConfig.BatchSize.
	MaxBatchSize = 10000
	// DefaultPollInterval is how often a relay looks for rows without
	// being notified when RelayConfig.PollInterval is zero.
	DefaultPollInterval = time.Second
	// DefaultBatchBytes is how many bytes of jobs one relay transaction
	// moves at most when RelayConfig.BatchBytes is zero.
	DefaultBatchBytes = 16 << 20
	// MaxBatchBytes caps RelayConfig.BatchBytes.
	MaxBatchBytes = 1 << 30
	// DefaultMaxBackoff is the longest wait after a failure when
	// RelayConfig.MaxBackoff is zero.
	DefaultMaxBackoff = 5 * time.Second
	// DefaultBatchTimeout bounds one batch when RelayConfig.BatchTimeout
	// is zero.
	DefaultBatchTimeout = 30 * time.Second
	// DefaultReconnectInterval is how often a relay tries again while
	// PostgreSQL is unreachable when RelayConfig.ReconnectInterval is
	// zero.
	DefaultReconnectInterval = 25 * time.Millisecond
)

// RelayConfig configures a Relay. A nil config, and every zero field, means
// the documented default. NewRelay copies it.
type RelayConfig struct {
	// BatchSize is the most rows one relay transaction moves: it locks
	// them, stores their jobs in one Store call and deletes them.
	// Defaults to 1,000; at most 10,000.
	BatchSize int
	// BatchBytes bounds the bytes of the jobs one relay transaction
	// moves: it takes the rows in order while the jobs before each come
	// to less, so a batch holds at least one row, and a row of a large
	// job goes with few others. Without it, 1,000 jobs of a megabyte
	// made one store call of a gigabyte, which timed out at every try.
	// Defaults to 16 MiB; at least 1 KiB, at most 1 GiB.
	BatchBytes int
	// PollInterval is how often the relay looks for rows when no
	// notification came: the fallback for a lost LISTEN connection or a
	// database where the trigger is missing. Notifications wake it within
	// a round trip of a commit. Defaults to 1 s; at least 10 ms.
	PollInterval time.Duration
	// MaxBackoff bounds the wait after a batch failed while PostgreSQL
	// was reachable (the store unreachable, a shard down, a broken
	// table): the relay waits 50 ms, then doubles the wait each failure
	// up to MaxBackoff, with jitter, and leaves the rows in place, so
	// that a failure that persists does not spin. Defaults to 5 s; at
	// least 10 ms.
	MaxBackoff time.Duration
	// ReconnectInterval is how often the relay tries again while
	// PostgreSQL is unreachable: when a connection could not be opened
	// (refused, timed out, the server starting up, in crash recovery or
	// shutting down) or broke during a batch or while listening. Such
	// failures do not grow the backoff: the relay and its LISTEN
	// connection try again at this fixed interval (±25%), so that after
	// PostgreSQL restarts the relay resumes, LISTEN included, within
	// about one interval of the server accepting connections; the rows
	// committed meanwhile are relayed in the first batch. A try is one
	// connection attempt (two, with the listener's), so an outage costs
	// PostgreSQL's host about 80 refused connections a second per relay
	// at the default; a healthy relay never waits on it. The log gets a
	// warning when the outage begins, from the batches and from the
	// LISTEN connection (each repeated every 10 s while it lasts), and an
	// info from each when it ends. A server that answers
	// but refuses the connection (authentication, an unknown database,
	// too many clients) is up: that failure is backed off as MaxBackoff
	// says. Defaults to 25 ms; at least 1 ms.
	ReconnectInterval time.Duration
	// BatchTimeout bounds locking a batch's rows, and then storing their
	// jobs, deleting the rows and committing. Once the store call has
	// begun, the batch is finished even when Run's context ends, so that a
	// shutdown does not store jobs whose rows stay behind. Defaults to
	// 30 s; at least 100 ms.
	BatchTimeout time.Duration
	// Logger receives failures (as warnings) and dead-lettered rows (as
	// errors). Defaults to slog.Default().
	Logger *slog.Logger
	// MeterProvider makes the relay's metrics: the gauges
	// hopper.outbox.depth, hopper.outbox.oldest_age and hopper.outbox.dead
	// (observed while Run runs) and the counters hopper.outbox.relayed and
	// hopper.outbox.dead_lettered. Defaults to the global one
	// (otel.GetMeterProvider), read by NewRelay.
	MeterProvider metric.MeterProvider
}

// Validate reports whether c is valid: nil, or an error wrapping
// hopper.ErrInvalidConfig that names the field.
func (c RelayConfig) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c RelayConfig) withDefaults() (RelayConfig, error) {
	switch {
	case c.BatchSize == 0:
		c.BatchSize = DefaultBatchSize
	case c.BatchSize < 0 || c.BatchSize > MaxBatchSize:
		return c, fmt.Errorf("%w: RelayConfig.BatchSize %d must be between 1 and %d", hopper.ErrInvalidConfig, c.BatchSize, MaxBatchSize)
	}
	switch {
	case c.BatchBytes == 0:
		c.BatchBytes = DefaultBatchBytes
	case c.BatchBytes < 1<<10 || c.BatchBytes > MaxBatchBytes:
		return c, fmt.Errorf("%w: RelayConfig.BatchBytes %d must be between 1024 and %d", hopper.ErrInvalidConfig, c.BatchBytes, MaxBatchBytes)
	}
	var err error
	pos := func(name string, v *time.Duration, def, least time.Duration) {
		switch {
		case err != nil:
		case *v == 0:
			*v = def
		case *v < least:
			err = fmt.Errorf("%w: RelayConfig.%s %v must be at least %v", hopper.ErrInvalidConfig, name, *v, least)
		}
	}
	pos("PollInterval", &c.PollInterval, DefaultPollInterval, 10*time.Millisecond)
	pos("MaxBackoff", &c.MaxBackoff, DefaultMaxBackoff, 10*time.Millisecond)
	pos("BatchTimeout", &c.BatchTimeout, DefaultBatchTimeout, 100*time.Millisecond)
	pos("ReconnectInterval", &c.ReconnectInterval, DefaultReconnectInterval, time.Millisecond)
	if err != nil {
		return c, err
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MeterProvider == nil {
		c.MeterProvider = otel.GetMeterProvider()
	}
	return c, nil
}
