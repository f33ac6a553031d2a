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
// the worker's command key, which expires after store.WorkerCommandTTL.
func (s *Store) SendWorkerCommand(ctx context.Context, id string, cmd store.WorkerCommand) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	if err := store.ValidateWorkerCommand(id, cmd); err != nil {
		return err
	}
	err := s.rdb.Set(ctx, s.g.workerCmd(id), string(cmd), store.WorkerCommandTTL).Err()
	return wrap("command to worker "+strconv.Quote(id), err)
}

// TakeWorkerCommand returns and removes the command waiting for worker id
// with GET and DEL in one MULTI (see store.WorkerControl; GETDEL would
// need one more ACL right); "" when none waits.
func (s *Store) TakeWorkerCommand(ctx context.Context, id string) (store.WorkerCommand, error) {
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	key := s.g.workerCmd(id)
	var get *redis.StringCmd
	cmds, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, key)
		p.Del(ctx, key)
		return nil
	})
	err = txErr(cmds, err)
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", wrap("command of worker "+strconv.Quote(id), err)
	}
	v, err := get.Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", wrap("command of worker "+strconv.Quote(id), err)
	}
	return store.WorkerCommand(v), nil
}
