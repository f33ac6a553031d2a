package faulttest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
)

// keySlot returns the Redis Cluster hash slot of key: CRC16 (XMODEM) of
// its hash tag (the part between the first '{' and the next '}', when not
// empty) or of the whole key, modulo 16384. A copy of redisstore's, for
// choosing queue names by shard.
func keySlot(key string) int {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc % 16384)
}

// queueSlot is the hash slot of a queue's keys, tagged "{prefix:queue}".
func queueSlot(prefix, queue string) int { return keySlot("{" + prefix + ":" + queue + "}") }

// spreadQueues names perMaster queues ("q<n>") for each master of the
// cluster, and returns them with the master serving each.
func spreadQueues(t *testing.T, c *redistest.Cluster, prefix string, perMaster int) ([]string, map[string]string) {
	t.Helper()
	owner := map[string]string{}
	count := map[string]int{}
	var queues []string
	for i := 0; len(queues) < perMaster*len(c.Addrs) && i < 10000; i++ {
		q := fmt.Sprintf("q%d", i)
		m := c.MasterForSlot(t, queueSlot(prefix, q))
		if count[m] < perMaster {
			count[m]++
			owner[q] = m
			queues = append(queues, q)
		}
	}
	if len(queues) != perMaster*len(c.Addrs) {
		t.Fatalf("could not spread %d queues over the masters %v: %v", perMaster*len(c.Addrs), c.Addrs, count)
	}
	return queues, owner
}

// masters returns the addresses of the cluster's masters that are up now.
func masters(t *testing.T, c *redistest.Cluster) []string {
	t.Helper()
	var out []string
	for _, n := range c.Nodes(t) {
		if n.Role == redistest.Master && n.Up && len(n.Slots) > 0 {
			out = append(out, n.Addr)
		}
	}
	return out
}

// subscribers returns, per node address, how many pub/sub connections it
// serves (CLIENT LIST TYPE pubsub): where the workers' wake-up
// subscriptions are.
func subscribers(t *testing.T, addrs []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, addr := range addrs {
		c := redis.NewClient(&redis.Options{Addr: addr})
		list, err := c.ClientList(context.Background()).Result()
		_ = c.Close()
		if err != nil {
			t.Fatalf("CLIENT LIST on %s: %v", addr, err)
		}
		for _, line := range strings.Split(list, "\n") {
			if strings.Contains(line, " sub=") && !strings.Contains(line, " sub=0 ") {
				out[addr]++
			}
		}
	}
	return out
}
