package redisstore

import (
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// A job's error history (hash "e") is a sequence of frames, each a msgpack
// bin32 holding one msgpack array [atMs, attempt, error, stack]. The
// scripts append a frame without decoding the history (append_error in
// lua/lib_errors.lua); the time comes from the server. The client sends the
// tail of a record, encodeErrorRest.

// encodeErrorRest encodes attempt, error and stack of e: the record minus
// its array header and time. An Attempt of 0 lets the script put the job's
// current attempt.
func encodeErrorRest(e *store.AttemptError) []byte {
	b := make([]byte, 0, 8+len(e.Error)+len(e.Stack))
	b = appendInt(b, int64(max(e.Attempt, 0)))
	b = appendStr(b, e.Error)
	return appendStr(b, e.Stack)
}

// decodeHistory decodes an error history, oldest first.
func decodeHistory(blob string) ([]store.AttemptError, error) {
	if blob == "" {
		return nil, nil
	}
	var out []store.AttemptError
	r := reader{s: blob}
	for r.pos < len(r.s) && r.err == nil {
		if r.byte() != 0xc6 {
			return out, errCorrupt
		}
		body := reader{s: r.take(r.uint(4))}
		n := body.arrayLen()
		if n < 4 {
			return out, errCorrupt
		}
		e := store.AttemptError{
			At:      time.UnixMilli(body.int()),
			Attempt: int(body.int()),
			Error:   strings.Clone(body.bytes()),
			Stack:   strings.Clone(body.bytes()),
		}
		for i := 4; i < n; i++ {
			body.skip()
		}
		if body.err != nil {
			return out, body.err
		}
		out = append(out, e)
	}
	if r.err != nil {
		return out, r.err
	}
	if len(out) > store.MaxErrorHistory {
		out = out[len(out)-store.MaxErrorHistory:]
	}
	return out, nil
}

// attInfo is a job's attempt info (hash "a"): "attempt,claimedMs,token,readyMs".
type attInfo struct {
	attempt   int
	claimedMs int64 // 0 when never claimed
	token     uint64
	readyMs   int64 // when the job last became ready by promotion, requeue or release
}

func parseAttInfo(v string) attInfo {
	var a attInfo
	parts := strings.SplitN(v, ",", 4)
	if len(parts) != 4 {
		return a
	}
	a.attempt, _ = strconv.Atoi(parts[0])
	a.claimedMs, _ = strconv.ParseInt(parts[1], 10, 64)
	a.token, _ = strconv.ParseUint(parts[2], 10, 64)
	a.readyMs, _ = strconv.ParseInt(parts[3], 10, 64)
	return a
}
