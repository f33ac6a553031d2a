package redisstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

var _ store.WorkerControl = (*Store)(nil)

// SendWorkerCommand leaves cmd for worker id (see store.WorkerControl) in
// the worker's command key, which expires after store.WorkerCommandTTL,
// with a script that works at maxmemory (lua/wcmd_send.lua).
func (s *Store) SendWorkerCommand(ctx context.Context, id string, cmd store.WorkerCommand) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	if err := store.ValidateWorkerCommand(id, cmd); err != nil {
		return err
	}
	err := s.run(ctx, fullScript("wcmd_send"), []string{s.g.workerCmd(id)}, string(cmd), store.WorkerCommandTTL.Milliseconds()).Err()
	return wrap("command to worker "+strconv.Quote(id), err)
}

// TakeWorkerCommand returns and removes the command waiting for worker id
// (see store.WorkerControl), in one script (lua/wcmd_take.lua), which
// works at maxmemory; "" when none waits.
func (s *Store) TakeWorkerCommand(ctx context.Context, id string) (store.WorkerCommand, error) {
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	v, err := s.run(ctx, fullScript("wcmd_take"), []string{s.g.workerCmd(id)}).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", wrap("command of worker "+strconv.Quote(id), err)
	}
	return store.WorkerCommand(v), nil
}
