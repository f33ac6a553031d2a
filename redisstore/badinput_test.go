package redisstore_test

// Redis-specific cases of the bad-input catalogue (docs/bad-input.md):
// real NOPERM, OOM and READONLY replies from private servers, and corrupt
// or hostile values in the keys the store reads.

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestBadInputNoPerm: an ACL user without the commands or keys hopper
// needs gets ErrNoPerm, which is not Temporary.
func TestBadInputNoPerm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	for _, acl := range [][]any{
		{"ACL", "SETUSER", "reader", "on", ">pw", "~*", "&*", "+@read", "+@connection", "+info"},
		{"ACL", "SETUSER", "fenced", "on", ">pw", "~elsewhere:*", "&*", "+@all"},
	} {
		if err := admin.Do(ctx, acl...).Err(); err != nil {
			t.Fatalf("%v: %v", acl, err)
		}
	}
	for _, user := range []string{"reader", "fenced"} {
		t.Run(user, func(t *testing.T) {
			rdb := srv.Client(t, func(o *redis.Options) { o.Username, o.Password = user, "pw" })
			s := storeOn(t, rdb, nil)
			_, err := s.Enqueue(ctx, []*store.NewJob{job("q", "a")})
			if !errors.Is(err, redisstore.ErrNoPerm) || redisstore.Temporary(err) {
				t.Fatalf("Enqueue as %s: %v, want ErrNoPerm, not temporary", user, err)
			}
			if !strings.Contains(err.Error(), "NOPERM") {
				t.Errorf("error %q does not quote the Redis reply", err)
			}
		})
	}
}

// TestBadInputOOM: a server at maxmemory (noeviction) refuses enqueues with
// ErrOOM, which is Temporary; jobs already stored stay readable.
func TestBadInputOOM(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, nil)
	mustEnqueue(t, s, job("q", "before"))
	if err := rdb.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Enqueue(ctx, []*store.NewJob{job("q", "after")})
	if !errors.Is(err, redisstore.ErrOOM) || !redisstore.Temporary(err) {
		t.Fatalf("Enqueue at maxmemory: %v, want ErrOOM, temporary", err)
	}
	if _, err := hopper.NewInspector(s).GetJob(ctx, "q", "before"); err != nil {
		t.Errorf("GetJob of a job stored before: %v, want it readable", err)
	}
	if _, err := hopper.NewInspector(s).GetJob(ctx, "q", "after"); !errors.Is(err, store.ErrJobNotFound) {
		t.Errorf("GetJob of the refused job: %v, want ErrJobNotFound", err)
	}
}

// TestBadInputReadOnly: a master demoted to a replica (as after a
// failover) refuses enqueues with ErrReadOnly, which is Temporary.
func TestBadInputReadOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primary := redistest.Start(t, redistest.Private())
	old := redistest.Start(t, redistest.Private())
	rdb := old.Client(t)
	s := storeOn(t, rdb, nil)
	mustEnqueue(t, s, job("q", "before"))

	host, port, err := net.SplitHostPort(primary.Options().Addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Do(context.Background(), "REPLICAOF", "NO", "ONE") })
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := rdb.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica link not up within 10s: %v %s", err, info)
		}
		time.Sleep(5 * time.Millisecond) // polling interval
	}
	_, err = s.Enqueue(ctx, []*store.NewJob{job("q", "after")})
	if !errors.Is(err, redisstore.ErrReadOnly) || !redisstore.Temporary(err) {
		t.Fatalf("Enqueue on a demoted master: %v, want ErrReadOnly, temporary", err)
	}
}

// corrupt stores value v under the field id of hash key, as a bug or a
// hostile writer with access to Redis would.
func corrupt(t *testing.T, rdb *redis.Client, key, id, v string) {
	t.Helper()
	if err := rdb.HSet(context.Background(), key, id, v).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestBadInputCorruptValues: values in Redis that hopper did not write
// (truncated, not msgpack, length bombs) make the reading call fail with a
// "corrupt stored data" error; nothing panics and memory stays bounded.
func TestBadInputCorruptValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	jobs := "{" + prefix + ":q}:j"
	mustEnqueue(t, s, job("q", "ok"), job("q", "notmsgpack"), job("q", "metabomb"), job("q", "history"))
	corrupt(t, rdb, jobs, "notmsgpack", "not a job value")
	corrupt(t, rdb, jobs, "metabomb", "1,0,\x96\xa1k\xc4\x00\x00\x00\xa0\xdf\xff\xff\xff\xff")
	corrupt(t, rdb, "{"+prefix+":q}:e", "history", "\xc6\xff\xff\xff\xff\x94")

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, id := range []string{"notmsgpack", "metabomb", "history"} {
		t.Run("job "+id, func(t *testing.T) {
			_, err := hopper.NewInspector(s).GetJob(ctx, "q", id)
			if err == nil || !strings.Contains(err.Error(), "corrupt stored data") {
				t.Errorf("GetJob: %v, want a corrupt stored data error", err)
			}
		})
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("reading three corrupt jobs allocated %d bytes, want well under 16 MiB", n)
	}
	if rec, err := hopper.NewInspector(s).GetJob(ctx, "q", "ok"); err != nil || string(rec.Args) != "args of ok" {
		t.Errorf("GetJob of the intact job next to them: %+v, %v", rec, err)
	}

	t.Run("worker record with a length bomb", func(t *testing.T) {
		w := "{" + prefix + "}:w:bomb"
		if err := rdb.Set(ctx, w, "1,\x81\xa1r\xdd\xff\xff\xff\xff", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.ZAdd(ctx, "{"+prefix+"}:workers", redis.Z{Score: 1e15, Member: "bomb"}).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := hopper.NewInspector(s).ListWorkers(ctx); err == nil || !strings.Contains(err.Error(), "corrupt stored data") {
			t.Errorf("Workers: %v, want a corrupt stored data error", err)
		}
	})
	t.Run("schedule record with a length bomb", func(t *testing.T) {
		corrupt(t, rdb, "{"+prefix+"}:schedules", "q:bomb", "\x81\xa1n\xdb\xff\xff\xff\xff")
		if _, err := s.ListSchedules(ctx); err == nil || !strings.Contains(err.Error(), "corrupt stored data") {
			t.Errorf("Schedules: %v, want a corrupt stored data error", err)
		}
	})
}
