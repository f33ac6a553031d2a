package outbox

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
)

// Config configures an Outbox. A nil *Config, and every zero field,
// means the documented default. New copies it.
type Config struct {
	// Table is the outbox table, optionally with its schema
	// ("jobs.outbox"); see NamesOf for what is allowed. Writers and relays
	// of one outbox must name the same table. Defaults to DefaultTable,
	// "hopper_outbox".
	Table string
	// TracerProvider makes the PRODUCER span Enqueue starts for each job
	// written in a traced transaction. Defaults to the global one
	// (otel.GetTracerProvider), read by New.
	TracerProvider trace.TracerProvider
	// Propagator writes that span's context into the job's metadata, where
	// hopper's worker middleware (middleware.Tracing) continues the trace.
	// Defaults to the global propagator, read on every job, or W3C trace
	// context while none is set, as package middleware does.
	Propagator propagation.TextMapPropagator
}

// Outbox writes jobs into an outbox table inside the application's
// transactions (Enqueue, EnqueueMany). It encodes and resolves jobs with
// its Client's configuration, exactly as hopper.Enqueue does; the
// Client's store is used only by relays (pgxoutbox.Relay). An Outbox is
// safe for concurrent use; make one per Client and table, and share it.
type Outbox struct {
	client  *hopper.Client
	names   Names
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator // nil: the global one, or trace context
	insert1 string                        // the insert statement of one row
}

// New returns an Outbox that prepares jobs with client's defaults (queue,
// retries, args size limit) and writes them to the table cfg names. A nil
// cfg means the defaults (see Config). It panics if client is nil or a
// zero Client (one hopper.NewClient did not make) or cfg.Table is invalid
// (with the error of Config.Validate), since these are programming errors.
func New(client *hopper.Client, cfg *Config) *Outbox {
	if client.Store() == nil {
		panic("outbox: New with a nil or zero *hopper.Client (make one with hopper.NewClient)")
	}
	var o Config
	if cfg != nil {
		o = *cfg
	}
	names, err := NamesOf(o.Table)
	if err != nil {
		panic(err)
	}
	tp := o.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &Outbox{
		client:  client,
		names:   names,
		tracer:  tp.Tracer(instrumentationName),
		prop:    o.Propagator,
		insert1: insertSQL(names.Table, 1),
	}
}

// Validate reports whether o is valid: nil, or an error wrapping
// hopper.ErrInvalidConfig that names the problem.
func (o Config) Validate() error {
	_, err := NamesOf(o.Table)
	return err
}

// Client returns the client the outbox prepares jobs with, and relays
// store them through.
func (o *Outbox) Client() *hopper.Client { return o.client }

// Names returns the SQL names of the outbox's table, dead-letter table,
// trigger and channel.
func (o *Outbox) Names() Names { return o.names }
