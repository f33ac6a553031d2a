package main

import (
	"context"
	"crypto/sha1"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// floorBody holds the least a script that enqueues one job can do on
// Redis, to set hopper's lone enqueue (and asynq's) against: each function
// stores the job (HSETNX of its value, which also refuses a duplicate ID)
// and pushes its ID onto the ready list, waking a worker when the list was
// empty. floor_clock also reads the server's clock (TIME) and prefixes the
// value with it in ms, as hopper's enqueue does (lua/base.lua's now_str);
// floor_mark also reads one field of the queue's marks (HGET), the least a
// script can read to learn the queue's shape and whether its events are
// read; floor_marks reads them as hopper's enqueue does, one HMGET of the
// six fields that carry them. None keeps hopper's other guarantees (the
// shape check that refuses the wrong variant, the events): the counts are
// floors, not a design.
const floorBody = `local PAD = {'00000', '0000', '000', '00', '0', ''}
local function push(KEYS, ARGV, v)
  if redis.call('HSETNX', KEYS[1], ARGV[1], v) == 0 then return 'd' end
  if redis.call('RPUSH', KEYS[2], ARGV[1]) == 1 then redis.call('PUBLISH', 'floor:ready', 'q') end
  return 'r'
end
local function now_s()
  local t = redis.call('TIME')
  return t[1] .. string.sub(PAD[#t[2]] .. t[2], 1, 3)
end
redis.register_function('floor_store', function(KEYS, ARGV) return push(KEYS, ARGV, ARGV[2]) end)
redis.register_function('floor_clock', function(KEYS, ARGV) return push(KEYS, ARGV, now_s() .. ',' .. ARGV[2]) end)
redis.register_function('floor_mark', function(KEYS, ARGV)
  redis.call('HGET', KEYS[3], 'sh')
  return push(KEYS, ARGV, now_s() .. ',' .. ARGV[2])
end)
redis.register_function('floor_marks', function(KEYS, ARGV)
  redis.call('HMGET', KEYS[3], 'ev', 'sh', 'evw', 'evr', 'evs', 'evh')
  return push(KEYS, ARGV, now_s() .. ',' .. ARGV[2])
end)
`

// floorLib is floorBody as a function library named after its code, so
// that a server holding another version of it loads this one too.
func floorLib() string {
	return fmt.Sprintf("#!lua name=hopper_instr_floor_%x\n", sha1.Sum([]byte(floorBody))) + floorBody
}

// floorSystems are the -sys values that call floorLib's functions.
var floorSystems = map[string]string{
	"floor-store": "floor_store",
	"floor-clock": "floor_clock",
	"floor-mark":  "floor_mark",
	"floor-marks": "floor_marks",
}

// floorEnqueuer loads floorLib (once per server) and returns a function
// that enqueues one job with fn, under a new 20-character ID, with the
// value hopper's enqueue sends for a payload of size bytes (its envelope
// adds 21 bytes to the payload of a job of kind "bench"). It is safe for
// concurrent use.
func floorEnqueuer(ctx context.Context, rdb *redis.Client, fn string, size int) (func() error, error) {
	if err := rdb.FunctionLoad(ctx, floorLib()).Err(); err != nil && !strings.Contains(err.Error(), "already exists") {
		return nil, fmt.Errorf("load the floor functions: %w", err)
	}
	keys := []string{"{floor:q}:j", "{floor:q}:r", "{floor:q}:m"}
	// The marks a plain queue of hopper's holds once its enqueues know
	// that nobody reads its events: a read finds a field, as hopper's does.
	if err := rdb.HSet(ctx, keys[2], "evs", "1").Err(); err != nil {
		return nil, err
	}
	val := make([]byte, size+21)
	// IDs: this process's start in base 36 (8 characters), then a count.
	prefix := strconv.FormatInt(time.Now().UnixMilli(), 36)
	var n atomic.Int64
	return func() error {
		id := fmt.Sprintf("%s%012d", prefix, n.Add(1))
		return rdb.FCall(ctx, fn, keys, id, val).Err()
	}, nil
}
