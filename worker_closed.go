package hopper

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
)

// A store's error says, with a method, that no call of a Worker or a
// Scheduler can succeed again, so that they stop and return it rather
// than retry it until their context ends (package hopper imports no
// store):
//
//   - StoreClosed() bool returning true: the store is closed for good, as
//     redisstore.ErrClientClosed says (its go-redis client was closed);
//   - StoreFinal() bool returning true: the store refuses every call until
//     an operator acts, and the error's text says what to do, as an
//     unsupported data layout does (upgrade hopper, or migrate the data).
type (
	closedError interface{ StoreClosed() bool }
	finalError  interface{ StoreFinal() bool }
)

// storeClosed reports whether err says that its store cannot serve a
// call again: closed for good, or refusing for good (see closedError and
// finalError).
func storeClosed(err error) bool { return storeEnd(err) != "" }

// storeEnd says why err ends a run ("its store is closed", or that its
// error is final), or "" when err does not.
func storeEnd(err error) string {
	var c closedError
	var f finalError
	switch {
	case errors.As(err, &c) && c.StoreClosed():
		return "its store is closed"
	case errors.As(err, &f) && f.StoreFinal():
		return "its store's error is final (do what it says, then run again)"
	}
	return ""
}

// closeWatch is the store one Run of a Worker or Scheduler works on: st
// itself, but the errors of the calls the run makes over and over (a
// Worker's Claim, WaitReady and Heartbeat; a Scheduler's Maintain,
// WaitSchedule, ListQueues and RegisterSchedules, and through watched the
// workflow and stored-schedule duties) are looked at, and the first that
// says the store cannot serve a call again (storeClosed) is kept and ends
// the run, which would otherwise log it until its context ended. The
// store's capabilities are found through Unwrap (store.As).
type closeWatch struct {
	Store
	stop context.CancelFunc

	mu  sync.Mutex
	err error
}

func (s *closeWatch) Unwrap() Store { return s.Store }

// seen looks at the error of a call.
func (s *closeWatch) seen(err error) {
	if err == nil || !storeClosed(err) {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.stop()
}

// closed returns the error that ended the run, nil when none did.
func (s *closeWatch) closed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// ended returns the error a run ended by s returns: nil, or the error that
// ended it under what (the worker, the scheduler), saying why.
func (s *closeWatch) ended(what string) error {
	err := s.closed()
	if err == nil {
		return nil
	}
	return errorf("hopper: %s stopped: %s: %w", what, storeEnd(err), err)
}

func (s *closeWatch) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	if err != nil {
		s.seen(err)
	}
	return res, err
}

func (s *closeWatch) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.Store.WaitReady(ctx, queues, timeout)
	if err != nil {
		s.seen(err)
	}
	return got, err
}

func (s *closeWatch) Heartbeat(ctx context.Context, w store.WorkerInfo, ttl time.Duration) error {
	err := s.Store.Heartbeat(ctx, w, ttl)
	if err != nil {
		s.seen(err)
	}
	return err
}

func (s *closeWatch) Maintain(ctx context.Context, queue string, opts store.MaintainOpts) (store.MaintainResult, error) {
	res, err := s.Store.Maintain(ctx, queue, opts)
	if err != nil {
		s.seen(err)
	}
	return res, err
}

func (s *closeWatch) WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.Store.WaitSchedule(ctx, queues, timeout)
	if err != nil {
		s.seen(err)
	}
	return got, err
}

func (s *closeWatch) ListQueues(ctx context.Context) ([]string, error) {
	qs, err := s.Store.ListQueues(ctx)
	if err != nil {
		s.seen(err)
	}
	return qs, err
}

func (s *closeWatch) RegisterSchedules(ctx context.Context, infos []store.ScheduleInfo) error {
	err := s.Store.RegisterSchedules(ctx, infos)
	if err != nil {
		s.seen(err)
	}
	return err
}

// watchedWorkflows is a store's workflows whose duties' errors s looks at.
type watchedWorkflows struct {
	store.Workflows
	s *closeWatch
}

func (w watchedWorkflows) MaintainWorkflows(ctx context.Context, batch int) (time.Duration, error) {
	next, err := w.Workflows.MaintainWorkflows(ctx, batch)
	if err != nil {
		w.s.seen(err)
	}
	return next, err
}

// watchedSchedules is a store's stored schedules whose reads' errors s
// looks at.
type watchedSchedules struct {
	store.ScheduleStore
	s *closeWatch
}

func (w watchedSchedules) SchedulesVersion(ctx context.Context) (int64, error) {
	v, err := w.ScheduleStore.SchedulesVersion(ctx)
	if err != nil {
		w.s.seen(err)
	}
	return v, err
}

func (w watchedSchedules) ListStoredSchedules(ctx context.Context) ([]store.StoredSchedule, int64, error) {
	list, v, err := w.ScheduleStore.ListStoredSchedules(ctx)
	if err != nil {
		w.s.seen(err)
	}
	return list, v, err
}
