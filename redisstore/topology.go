package redisstore

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// observe looks at the error of a Redis call and, on a Redis Cluster, asks
// the client to reload the cluster's topology when the error says a node
// may be gone or may have changed role: a refused or broken connection, a
// timeout, CLUSTERDOWN, READONLY, LOADING, and a MOVED or ASK seen on a
// node's own connection (runPerNode, the replica wait). go-redis follows
// MOVED replies by itself but, left alone, keeps sending a dead master's slots to the
// dead address until its periodic reload (ClusterStateReloadInterval, 60 s
// by default), so a failed-over shard would stay unreachable for up to a
// minute after its replica took over. ReloadState is lazy and coalesced by
// go-redis (at most one reload per 200 ms), so calling it on every such
// error is cheap.
func (s *Store) observe(err error) {
	if err == nil || errors.Is(err, redis.Nil) {
		return
	}
	cc, ok := s.rdb.(*redis.ClusterClient)
	if !ok {
		return
	}
	switch classify(err) {
	case ErrUnavailable, ErrClusterDown, ErrReadOnly, ErrLoading:
	default:
		if !errors.Is(err, context.DeadlineExceeded) && !redirected(err) {
			return
		}
	}
	cc.ReloadState(context.Background())
}
