package redisstore

import (
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/store"
)

// A job's error history (hash "e") is a sequence of frames, each a msgpack
// bin32 holding one msgpack array [atMs, attempt, error, stack] or, when
// the worker said when and where the attempt ran, [atMs, attempt, error,
// stack, startedMs, worker]. The scripts append a frame without decoding
// the history (append_error in lua/lib_errors.lua); the time comes from
// the server. The client sends the tail of a record, encodeErrorRest.

// extendedRecord, first in a tail, tells append_error the record has six
// elements, not four: it is their array header.
const extendedRecord = 0x96

// encodeErrorRest encodes attempt, error and stack of e (and, when known,
// when the attempt started and its worker, after extendedRecord): the
// record minus its time. An Attempt of 0 lets the script put the job's
// current attempt.
func encodeErrorRest(e *store.AttemptError) []byte {
	extended := !e.StartedAt.IsZero() || e.Worker != ""
	b := make([]byte, 0, 24+len(e.Error)+len(e.Stack)+len(e.Worker))
	if extended {
		b = append(b, extendedRecord)
	}
	b = mpack.AppendInt(b, int64(max(e.Attempt, 0)))
	b = mpack.AppendStr(b, e.Error)
	b = mpack.AppendStr(b, e.Stack)
	if extended {
		var ms int64
		if !e.StartedAt.IsZero() {
			ms = e.StartedAt.UnixMilli()
		}
		b = mpack.AppendInt(b, ms)
		b = mpack.AppendStr(b, e.Worker)
	}
	return b
}

// decodeHistory decodes an error history, oldest first.
func decodeHistory(blob string) ([]store.AttemptError, error) {
	if blob == "" {
		return nil, nil
	}
	var out []store.AttemptError
	r := newReader(blob)
	for r.Len() > 0 && r.err() == nil {
		if r.Byte() != 0xc6 {
			return out, errCorrupt
		}
		body := newReader(r.Take(r.Uint(4)))
		n := body.ArrayLen()
		if n < 4 {
			return out, errCorrupt
		}
		e := store.AttemptError{
			At:      time.UnixMilli(body.int()),
			Attempt: int(body.int()),
			Error:   strings.Clone(body.bytes()),
			Stack:   strings.Clone(body.bytes()),
		}
		if n >= 6 {
			if ms := body.int(); ms > 0 {
				e.StartedAt = time.UnixMilli(ms)
			}
			e.Worker = strings.Clone(body.bytes())
		}
		for i := min(n, 6); i < n; i++ {
			body.Skip()
		}
		if body.err() != nil {
			return out, body.err()
		}
		out = append(out, e)
	}
	if r.err() != nil {
		return out, r.err()
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
	a.readyMs = scoreMs(parts[3]) // with decimals when an older release promoted the job
	return a
}
