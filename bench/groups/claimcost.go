package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/bench/internal/servercpu"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// claimCost stores n jobs over each number of groups of groupList (0: none),
// then claims them all, max a call, with no worker and no acks, and prints
// what the claims alone cost Redis: the claim calls' µs (INFO
// commandstats, usec of FCALL) and the commands they ran, per claimed job.
// The unack set grows to n meanwhile, as it does not in a drain: compare
// numbers of groups with each other, not with a drain.
func claimCost(ctx context.Context, rdb *redis.Client, n, max int, groupList string, limit int) error {
	for _, f := range strings.Split(groupList, ",") {
		groups, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		if err := rdb.FlushAll(ctx).Err(); err != nil {
			return err
		}
		st := redisstore.New(rdb, &redisstore.Config{Prefix: "grbench", NoCoalescing: true})
		if groups > 0 && limit > 0 {
			if err := st.SetQueueConfig(ctx, "q", store.QueueConfig{GroupMaxRunning: limit}); err != nil {
				return err
			}
		}
		var batch []*store.NewJob
		for i := range n {
			j := &store.NewJob{Queue: "q", ID: fmt.Sprintf("j%08d", i), Kind: "bench.group", Args: []byte{0x80}}
			if groups > 0 {
				j.Group = "g" + strconv.Itoa(i%groups)
			}
			batch = append(batch, j)
			if len(batch) == 1000 || i == n-1 {
				if _, err := st.Enqueue(ctx, batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		// One claim first: it loads the variant of the script.
		res, err := st.Claim(ctx, store.ClaimOpts{Queue: "q", Max: max, Lease: time.Hour, WorkerID: "w"})
		if err != nil {
			return err
		}
		claimed, calls := 0, 0
		if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
			return err
		}
		for len(res.Jobs) > 0 {
			if res, err = st.Claim(ctx, store.ClaimOpts{Queue: "q", Max: max, Lease: time.Hour, WorkerID: "w"}); err != nil {
				return err
			}
			claimed += len(res.Jobs)
			calls++
		}
		stats, err := servercpu.CommandStats(ctx, rdb)
		if err != nil {
			return err
		}
		var fcall float64
		var cmds float64
		for _, s := range stats {
			switch {
			case s.Command == "fcall":
				fcall = s.Usec
			case strings.HasPrefix(s.Command, "config"), strings.HasPrefix(s.Command, "function"), s.Command == "info":
			default:
				cmds += s.Calls
			}
		}
		fmt.Printf("groups %d: %d jobs in %d claims: %.3f µs and %.2f commands a claimed job;%s\n",
			groups, claimed, calls, fcall/float64(claimed), cmds/float64(claimed), servercpu.PerJob(stats[1:], claimed, 8))
	}
	return nil
}
