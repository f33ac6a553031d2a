package memstore

import (
	"context"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

var _ store.WorkerControl = (*Store)(nil)

// workerCmd is a command waiting for a worker and when it expires, in Unix
// ms on the store's clock.
type workerCmd struct {
	cmd     store.WorkerCommand
	expires int64
}

// SendWorkerCommand leaves cmd for worker id (see store.WorkerControl),
// replacing one not yet taken; it expires after store.WorkerCommandTTL on
// the store's clock.
func (s *Store) SendWorkerCommand(ctx context.Context, id string, cmd store.WorkerCommand) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateWorkerCommand(id, cmd); err != nil {
		return err
	}
	_, nowMs := s.now()
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.workerCmds == nil {
		s.workerCmds = map[string]workerCmd{}
	}
	s.workerCmds[id] = workerCmd{cmd: cmd, expires: nowMs + mstime.Ceil(store.WorkerCommandTTL)}
	return nil
}

// TakeWorkerCommand returns and removes the command waiting for worker id;
// "" when none waits or it expired.
func (s *Store) TakeWorkerCommand(ctx context.Context, id string) (store.WorkerCommand, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	_, nowMs := s.now()
	s.rmu.Lock()
	defer s.rmu.Unlock()
	c, ok := s.workerCmds[id]
	delete(s.workerCmds, id)
	if !ok || c.expires <= nowMs {
		return "", nil
	}
	return c.cmd, nil
}
