package redisstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestAbortedTransactionSaysWhy: a MULTI that Redis aborts over a command
// it refused while queueing it (here DEL, which the ACL user may not run;
// LOADING after a restart does the same) fails with that command's error
// and class. It said "EXECABORT Transaction discarded because of previous
// errors", which a worker logged after every Redis restart.
func TestAbortedTransactionSaysWhy(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	if err := admin.Do(t.Context(), "ACL", "SETUSER", "nodel", "on", ">pw", "~*", "&*", "+@all", "-del").Err(); err != nil {
		t.Fatal(err)
	}
	rdb := srv.Client(t, func(o *redis.Options) { o.Username, o.Password = "nodel", "pw" })
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	if err := s.RemoveWorker(t.Context(), "w1"); !errors.Is(err, redisstore.ErrNoPerm) || strings.Contains(err.Error(), "EXECABORT") {
		t.Fatalf("RemoveWorker without DEL: %v; want ErrNoPerm naming the refused command, not EXECABORT", err)
	}
	// TakeWorkerCommand is a script (it runs at maxmemory, where a MULTI
	// does not): the DEL refused inside it is a refusal of the ACL too.
	if err := storeOn(t, admin, &redisstore.Config{Prefix: prefix}).SendWorkerCommand(t.Context(), "w1", store.WorkerStop); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeWorkerCommand(t.Context(), "w1"); !errors.Is(err, redisstore.ErrNoPerm) {
		t.Fatalf("TakeWorkerCommand without DEL: %v; want ErrNoPerm", err)
	}
}
