package redisstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper/store"
)

// TestLargeWritesGoToHashTables: a script's HSET of more than 128 fields
// writes into a hash table (base.lua's call_chunked pads its first
// command) and leaves no pad behind: a batch of 300 jobs into a new queue,
// and a workflow of 300 tasks. Without the pad Redis keeps such a hash as
// a listpack (up to 512 short fields by default), which it scans for
// every field read or written afterwards; with a pad left, the queue would
// count a job it does not have.
func TestLargeWritesGoToHashTables(t *testing.T) {
	s, rdb, prefix := newPrefixedStore(t)
	ctx := t.Context()
	const n = 300
	jobs := make([]*store.NewJob, n)
	for i := range jobs {
		jobs[i] = job("big", fmt.Sprintf("j%03d", i))
	}
	mustEnqueue(t, s, jobs...)
	tasks := make([]*store.NewTask, n)
	for i := range tasks {
		name := fmt.Sprintf("t%03d", i)
		j := job("wfq", store.TaskJobID("wf", name))
		j.Meta = map[string]string{store.MetaWorkflow: "wf", store.MetaTask: name}
		tasks[i] = &store.NewTask{Name: name, Job: j}
		if i > 0 {
			tasks[i].Deps = []string{"t000"}
		}
	}
	if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "wf", Tasks: tasks}); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(ctx, "{"+prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, k := range keys {
		if typ, _ := rdb.Type(ctx, k).Result(); typ != "hash" {
			continue
		}
		size, err := rdb.HLen(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if has, _ := rdb.HExists(ctx, k, "\x00pad").Result(); has {
			t.Errorf("%s holds the pad field", k)
		}
		if size <= 128 { // a listpack's worth (hash-max-listpack-entries)
			continue
		}
		checked++
		if enc, _ := rdb.ObjectEncoding(ctx, k).Result(); enc != "hashtable" {
			t.Errorf("%s: %d fields kept as a %s", k, size, enc)
		}
	}
	// The jobs hash of the batch, and the workflow's hashes of task
	// states, infos, payloads, dependencies and counts of dependencies left.
	if checked < 6 {
		t.Errorf("%d hashes of more than 128 fields, want 6 or more: %s", checked, strings.Join(keys, " "))
	}
	st, err := s.GetQueueStats(ctx, "big")
	if err != nil || st.Counts.Ready != n {
		t.Errorf("queue stats %+v, %v: want %d ready", st.Counts, err, n)
	}
}
