package redisstore_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/store"
)

// printedCalls keeps what go-redis prints of each script call (Cmd.String,
// what a tracing hook records as the statement).
type printedCalls struct{ kept[string] }

func (p *printedCalls) note(cmd redis.Cmder) {
	if isScriptCall(cmd) {
		p.keep(cmd.String())
	}
}

// The arguments sent a job at a time go to go-redis as pointers (args.go):
// a hook that prints a script call (a tracing hook's statement) still
// shows each job's ID, value, due time and unack member as text, on every
// path that sends them that way.
func TestScriptCallsPrintTheirJobs(t *testing.T) {
	ctx := context.Background()
	s, rdb, _ := leanQueue(t, "q")
	printed := &printedCalls{}
	rdb.AddHook(eachCommand(printed.note))

	mustEnqueue(t, s, job("q", "lone"))
	mustEnqueue(t, s, job("q", "pair-1"), job("q", "pair-2"))
	later := job("q", "later")
	later.Delay = time.Hour
	mustEnqueue(t, s, later, job("q", "now"))
	got := strings.Join(printed.take(), "\n")
	for _, want := range []string{"lone ", "args of lone", "pair-1 ", "args of pair-2", "later ", "args of later", "+3600000", "now "} {
		if !strings.Contains(got, want) {
			t.Errorf("the enqueue calls printed\n%s\nwithout %q", got, want)
		}
	}

	jobs := claimedByID(t, s, "q")
	var acks []store.AttemptEnd
	var members []string
	for _, id := range []string{"lone", "pair-1", "pair-2", "now"} {
		j := jobs[id]
		if j == nil {
			t.Fatalf("claimed %v, without %s", jobs, id)
		}
		a := ack(j)
		a.Kind, a.Attempt = j.Kind, j.Attempt
		acks = append(acks, a)
		members = append(members, id+"|"+strconv.FormatUint(j.Token, 10))
	}
	printed.take()
	// The first finish goes as pairs (the queue is lean). With events on,
	// the mark goes: the next still goes as pairs (the store learns it
	// from that call's reply), the last as quads, the kind printed too.
	mustFinish(t, s, acks[:2]...)
	if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{EventsMaxLen: 100}); err != nil {
		t.Fatal(err)
	}
	mustFinish(t, s, acks[2])
	mustFinish(t, s, acks[3])
	got = strings.Join(printed.take(), "\n")
	for i, want := range members {
		if !strings.Contains(got, acks[i].ID+" "+want) {
			t.Errorf("the finish calls printed\n%s\nwithout %q", got, acks[i].ID+" "+want)
		}
	}
	if !strings.Contains(got, members[3]+" test 1") {
		t.Errorf("the finish calls printed\n%s\nwithout the kind and attempt after %q", got, members[3])
	}
}
