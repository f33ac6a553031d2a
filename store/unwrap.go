package store

// Wrapper is implemented by a Store that wraps another one (for tracing,
// metrics or a test double): Unwrap returns the store it wraps, as
// errors.Unwrap does for an error. A wrapper that implements it keeps
// every optional capability of the store it wraps (Admin, Workflows,
// JobWaiter, EventReader, …) without re-implementing them: hopper finds
// capabilities with As, which looks through Unwrap.
//
// Unwrap must return a non-nil store other than the wrapper itself, and
// the same one every time; it is called concurrently.
type Wrapper interface {
	Store
	Unwrap() Store
}

// As returns the outermost implementation of the optional interface T in
// the chain that starts at s and follows Unwrap (see Wrapper): s itself
// when it implements T, else the store s wraps when that one does, and so
// on. It reports false when no store in the chain implements T. Every
// capability look-up in hopper (the engine, the Scheduler, the Inspector,
// Wait, the dashboard, the command line and storetest) goes through As.
//
// Calls to a capability found below a wrapper go to the inner store
// directly and bypass the wrapper: a wrapper that wants to see them (to
// trace Workflows.TaskResult, say) implements that interface itself, and
// As then finds the wrapper first. A wrapper that intercepts some methods
// of Store and not others is fine: Store's own methods always go through
// the outermost store.
//
// As is cheap (one type assertion per store in the chain) and safe for
// concurrent use.
func As[T any](s Store) (T, bool) {
	for s != nil {
		if v, ok := any(s).(T); ok {
			return v, true
		}
		w, ok := s.(interface{ Unwrap() Store })
		if !ok {
			break
		}
		s = w.Unwrap()
	}
	var zero T
	return zero, false
}
