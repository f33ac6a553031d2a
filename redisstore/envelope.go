package redisstore

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/internal/wire"
	"github.com/hopperq/hopper/store"
)

// A job's value in the jobs hash is
//
//	"<enqueuedMs>,<maxRetries>[p<priority>|g<group>]," + msgpack [kind, args, timeout, retention, uniqueKey, meta, options]
//
// The enqueue script writes the first part from the server's clock; the
// client writes the rest (encodeValue). MaxRetries is plain text because
// the reclaim script reads it without decoding msgpack, and so are a
// priority other than 0 and a group (a job has one or neither), which
// scripts read to find a ready job's list (lua/ready/prio.lua,
// lua/groups/store.lua); a release before them cannot read a job that
// has one. lua/replace.lua finds the unique key (fifth) and the options
// (seventh) by walking the msgpack bytes (lua/mpack.lua), to keep a
// replaced job's own: keep them in their places. The msgpack array
// has no field names: a newer version appends fields and an older reader
// skips them. Durations are whole milliseconds, or minus nanoseconds when
// not whole (so every duration round-trips exactly). Meta is nil when
// empty, and true for a workflow task's job whose Meta holds only its
// workflow and task, as its ID names them (store.TaskJobID): the reader
// rebuilds it from the ID, and each task's job is some 60 bytes smaller,
// which a claim and an ack pay for.
//
// options, the seventh element, holds every other field of the job's
// store.JobSpec (UniqueFor, and any field added since) as one map keyed
// by the fields' wire keys (specTail, package internal/wire); it is left
// out when all of them are zero, so a job that uses none is stored as
// before, and a value without it decodes with them zero.
const envelopeFields = 6

// specTail is the codec of the options element: the JobSpec fields the
// layout above does not place, which Lua never reads.
var specTail = wire.New[store.JobSpec](wire.Without("MaxRetries", "Priority", "Group", "Timeout", "Retention", "UniqueKey", "Meta"))

// encodeValue returns the client's part of job j's stored value.
func encodeValue(j *store.NewJob) []byte {
	return encodeValueIn(j, nil)
}

// encodeValueIn is encodeValue written in dst's memory when it fits in
// its capacity by the estimate of its size, else in memory of its own.
func encodeValueIn(j *store.NewJob, dst []byte) []byte {
	size := 32 + len(j.Kind) + len(j.Args) + len(j.UniqueKey)
	for k, v := range j.Meta {
		size += len(k) + len(v) + 10
	}
	b := dst[:0]
	if size > cap(dst) {
		b = make([]byte, 0, size)
	}
	b = strconv.AppendInt(b, int64(j.MaxRetries), 10)
	switch {
	case j.Group != "":
		b = append(b, 'g')
		b = append(b, j.Group...)
	case j.Priority != 0:
		b = append(b, 'p')
		b = strconv.AppendInt(b, int64(j.Priority), 10)
	}
	b = append(b, ',')
	head := len(b)
	b = mpack.AppendArrayHeader(b, envelopeFields)
	b = mpack.AppendStr(b, j.Kind)
	b = mpack.AppendBin(b, j.Args)
	b = mpack.AppendInt(b, encodeDur(j.Timeout))
	b = mpack.AppendInt(b, encodeDur(j.Retention))
	b = mpack.AppendStr(b, j.UniqueKey)
	switch {
	case len(j.Meta) == 0:
		b = mpack.AppendNil(b)
	case isTaskMeta(j.ID, j.Meta):
		b = append(b, msgTrue)
	default:
		b = mpack.AppendMapHeader(b, len(j.Meta))
		for k, v := range j.Meta {
			b = mpack.AppendStr(b, k)
			b = mpack.AppendStr(b, v)
		}
	}
	mark := len(b)
	b, n := specTail.AppendMap(b, &j.JobSpec)
	if n == 0 {
		return b[:mark]
	}
	b[head]++ // one more element: a fixarray header counts it
	return b
}

func encodeDur(d time.Duration) int64 {
	if d%time.Millisecond == 0 {
		return int64(d / time.Millisecond)
	}
	return -int64(d)
}

// decodeDur decodes a duration written by encodeDur; ok is false for a
// value no duration encodes to (one that would overflow to a negative
// duration).
func decodeDur(v int64) (d time.Duration, ok bool) {
	switch {
	case v == math.MinInt64 || v > math.MaxInt64/int64(time.Millisecond):
		return 0, false
	case v < 0:
		return time.Duration(-v), true
	}
	return time.Duration(v) * time.Millisecond, true
}

// msgTrue is msgpack's true.
const msgTrue = 0xc3

// isTaskMeta reports whether meta is exactly what a workflow task's job
// with ID id carries: its workflow and task, which the ID names.
func isTaskMeta(id string, meta map[string]string) bool {
	if len(meta) != 2 {
		return false
	}
	wf, task, ok := store.ParseTaskJobID(id)
	return ok && meta[store.MetaWorkflow] == wf && meta[store.MetaTask] == task
}

// decodeValue fills the fields of rec stored in value v: Kind, Args, the
// JobSpec and EnqueuedAt. rec.ID must be set: a task's Meta is rebuilt
// from it. On an error rec may be partly filled.
func decodeValue(v string, rec *store.JobRecord) error {
	enq, rest, ok1 := strings.Cut(v, ",")
	maxr, env, ok2 := strings.Cut(rest, ",")
	digits := 0
	for digits < len(maxr) && maxr[digits] >= '0' && maxr[digits] <= '9' {
		digits++
	}
	maxr, tail := maxr[:digits], maxr[digits:]
	enqMs, err1 := strconv.ParseInt(enq, 10, 64)
	maxRetries, err2 := strconv.Atoi(maxr)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return errCorrupt
	}
	priority, group := 0, ""
	switch {
	case tail == "":
	case tail[0] == 'p':
		p, err := strconv.Atoi(tail[1:])
		if err != nil || p < store.MinPriority || p > store.MaxPriority {
			return errCorrupt
		}
		priority = p
	case tail[0] == 'g' && len(tail) > 1:
		group = strings.Clone(tail[1:])
	default:
		return errCorrupt
	}
	r := newReader(env)
	n := r.ArrayLen()
	if n < envelopeFields {
		return errCorrupt
	}
	kind := r.bytes()
	args := r.bytes()
	timeout := r.int()
	retention := r.int()
	unique := r.bytes()
	var meta map[string]string
	if r.NextIs(msgTrue) {
		wf, task, ok := store.ParseTaskJobID(rec.ID)
		if !ok {
			return errCorrupt
		}
		meta = map[string]string{store.MetaWorkflow: wf, store.MetaTask: task}
	} else if m := r.mapLen(); m > 0 {
		meta = make(map[string]string, m)
		for range m {
			k := r.bytes()
			meta[strings.Clone(k)] = strings.Clone(r.bytes())
		}
	}
	if r.err() != nil {
		return r.err()
	}
	tdur, ok3 := decodeDur(timeout)
	rdur, ok4 := decodeDur(retention)
	if !ok3 || !ok4 {
		return errCorrupt
	}
	rec.Kind = internKind(kind)
	rec.Args = []byte(args)
	rec.JobSpec = store.JobSpec{Meta: meta, MaxRetries: maxRetries, Priority: priority, Group: group, Timeout: tdur, Retention: rdur}
	if unique != "" {
		rec.UniqueKey = strings.Clone(unique)
	}
	if n > envelopeFields {
		m, err := specTail.Decode(r.Rest(), &rec.JobSpec)
		if err != nil {
			return errCorrupt
		}
		r.Advance(m)
		for i := envelopeFields + 1; i < n; i++ {
			r.Skip()
		}
		if r.err() != nil {
			return r.err()
		}
	}
	rec.EnqueuedAt = time.UnixMilli(enqMs)
	return nil
}

// kinds interns job kinds: a program has few, and sharing one string per
// kind saves an allocation per decoded job without keeping the reply that
// held it alive.
var kinds struct {
	sync.RWMutex
	m map[string]string
}

const maxInternedKinds = 4096

func internKind(k string) string {
	kinds.RLock()
	s, ok := kinds.m[k]
	kinds.RUnlock()
	if ok {
		return s
	}
	s = strings.Clone(k)
	kinds.Lock()
	if kinds.m == nil {
		kinds.m = make(map[string]string)
	}
	if len(kinds.m) < maxInternedKinds {
		kinds.m[s] = s
	}
	kinds.Unlock()
	return s
}
