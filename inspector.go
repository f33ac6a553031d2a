package hopper

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// Inspector is the operator's view of a store: what is in each queue, one
// job or a page of them, requeue, delete and cancel, pause and resume,
// limits, throughput, the live workers and the periodic schedules. The
// dashboard and the hopper command line are built on it.
//
// It checks and defaults every request once, before the store sees it: a
// bad queue name, state or range fails with an error wrapping
// ErrInvalidQueue, ErrInvalidState or ErrInvalidConfig, and the store is not
// called. Everything but Queues and Schedules needs a store that implements
// store.Admin (memstore and redisstore do); on one that does not, those
// methods return ErrNotSupported and Supported reports false.
//
// An Inspector is safe for concurrent use; it holds no state of its own.
// Make one with NewInspector: the methods of a nil *Inspector, or of a
// zero Inspector, return an error wrapping ErrInvalidConfig (Store
// returns nil, Supported and WorkflowsSupported false).
type Inspector struct {
	st    Store
	admin store.Admin // nil when the store has none
}

// NewInspector returns an Inspector on s. It panics if s is nil.
func NewInspector(s Store) *Inspector {
	if s == nil {
		panic("hopper: NewInspector with a nil Store")
	}
	i := &Inspector{st: s}
	i.admin, _ = store.As[store.Admin](s)
	return i
}

// errNilInspector is the error of a method of a nil *Inspector, or of a
// zero Inspector, which NewInspector did not make.
var errNilInspector = fmt.Errorf("%w: a nil or zero *Inspector (make one with NewInspector)", ErrInvalidConfig)

// made returns errNilInspector for a nil or zero Inspector: it has no
// store.
func (i *Inspector) made() error {
	if i == nil || i.st == nil {
		return errNilInspector
	}
	return nil
}

// Store returns the store the Inspector reads.
func (i *Inspector) Store() Store {
	if i == nil {
		return nil
	}
	return i.st
}

// Supported reports whether the store implements store.Admin, which every
// method but Queues and Schedules needs.
func (i *Inspector) Supported() bool { return i != nil && i.admin != nil }

// adminFor returns the store's Admin, or ErrNotSupported naming what.
func (i *Inspector) adminFor(what string) (store.Admin, error) {
	if i.admin == nil {
		return nil, fmt.Errorf("%w: %s (the store %T does not implement store.Admin)", ErrNotSupported, what, i.st)
	}
	return i.admin, nil
}

// optional returns st as the optional store interface T, or an error
// wrapping ErrNotSupported that names what needed it and iface (T's name).
func optional[T any](st Store, what, iface string) (T, error) {
	v, ok := store.As[T](st)
	if !ok {
		return v, fmt.Errorf("%w: %s needs a store that implements %s; %T does not", ErrNotSupported, what, iface, st)
	}
	return v, nil
}

// ListQueues lists every queue the store has seen, sorted by name.
func (i *Inspector) ListQueues(ctx context.Context) ([]string, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	return i.st.ListQueues(ctx)
}

// ListWorkers lists the live worker processes, sorted by ID.
func (i *Inspector) ListWorkers(ctx context.Context) ([]WorkerInfo, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	a, err := i.adminFor("listing workers")
	if err != nil {
		return nil, err
	}
	return a.ListWorkers(ctx)
}
