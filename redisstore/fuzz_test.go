package redisstore

import (
	"bytes"
	"encoding/binary"
	"maps"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/store"
	"github.com/vmihailenco/msgpack/v5"
)

// Fuzz targets for every decoder of bytes read from Redis. Each asserts no
// panic, allocation in proportion to the input, and a round trip through
// the matching encoder for whatever decodes.

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkAlloc fails when decoding n bytes allocated more than a fixed
// allowance plus a generous amount per byte; a length bomb allocates
// megabytes from a few bytes.
func checkAlloc(t *testing.T, n int, got uint64) {
	t.Helper()
	if limit := 64<<10 + 1024*uint64(n); got > limit {
		t.Fatalf("decoding %d bytes allocated %d bytes, more than %d", n, got, limit)
	}
}

// storedValue is a job's value as the enqueue script stores it.
func storedValue(enqMs int64, j *store.NewJob) string {
	return strconv.FormatInt(enqMs, 10) + "," + string(encodeValue(j))
}

func FuzzDecodeValue(f *testing.F) {
	for _, j := range []*store.NewJob{
		{Kind: "k"},
		{Kind: "send_email", Args: []byte{0x81, 0xa2, 'T', 'o', 0xa3, 'a', '@', 'b'}, JobSpec: store.JobSpec{MaxRetries: 25, Timeout: 90 * time.Second, Retention: time.Hour, UniqueKey: "u-1", Meta: map[string]string{"trace": "abc"}}},
		{Kind: "ünïcode ✓", Args: bytes.Repeat([]byte{0xc0}, 300), JobSpec: store.JobSpec{Timeout: 1500 * time.Microsecond}},
		{Kind: "k", JobSpec: store.JobSpec{Group: "g", UniqueKey: "u", UniqueFor: time.Minute}},
	} {
		f.Add(storedValue(1700000000123, j))
	}
	f.Add("1,2,\x96")
	f.Add("")
	f.Add("1,2," + "\x96\xa1k\xc4\x00\x00\x00\xa0\xdf\xff\xff\xff\xff")                 // meta map32 bomb
	f.Add("1,2," + "\x97\xa1k\xc4\x00\x00\x00\xa0\xc0" + strings.Repeat("\x91", 5000))  // deep extra field
	f.Add("1,2," + "\x96\xa1k\xc4\x00\xcf\xff\xff\xff\xff\xff\xff\xff\xff\x00\xa0\xc0") // overflowing timeout
	f.Fuzz(func(t *testing.T, v string) {
		var rec store.JobRecord
		var err error
		checkAlloc(t, len(v), allocated(func() { err = decodeValue(v, &rec) }))
		if err != nil {
			return
		}
		if rec.Timeout < 0 || rec.Retention < 0 {
			t.Fatalf("decoded negative durations: timeout %v, retention %v", rec.Timeout, rec.Retention)
		}
		j := &store.NewJob{Kind: rec.Kind, Args: rec.Args, JobSpec: rec.JobSpec}
		var again store.JobRecord
		if err := decodeValue(storedValue(rec.EnqueuedAt.UnixMilli(), j), &again); err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if again.Kind != rec.Kind || !bytes.Equal(again.Args, rec.Args) || !reflect.DeepEqual(again.JobSpec, rec.JobSpec) ||
			!again.EnqueuedAt.Equal(rec.EnqueuedAt) {
			t.Fatalf("round trip changed the record:\n%+v\n%+v", rec, again)
		}
	})
}

// historyFrame is one error record as lua/lib_errors.lua appends it.
func historyFrame(at int64, e *store.AttemptError) string {
	body := mpack.AppendArrayHeader(nil, 4)
	body = mpack.AppendInt(body, at)
	body = append(body, encodeErrorRest(e)...)
	frame := binary.BigEndian.AppendUint32([]byte{0xc6}, uint32(len(body))) // always bin32
	return string(append(frame, body...))
}

func FuzzDecodeHistory(f *testing.F) {
	f.Add("")
	f.Add(historyFrame(1700000000000, &store.AttemptError{Attempt: 1, Error: "boom"}))
	f.Add(historyFrame(5, &store.AttemptError{Attempt: 2, Error: "panic: x", Stack: "goroutine 1\n..."}) +
		historyFrame(6, &store.AttemptError{Attempt: 3, Error: "ü"}))
	f.Add("\xc6\x00\x00\x00\x05\x94\x01\x01\xa0\xa0")
	f.Add("\xc6\xff\xff\xff\xff")
	f.Add("\xc6\xff\xff\xff\xff\x94")                 // frame claiming 4 GB
	f.Add("\xc6\x00\x00\x00\x05\xdd\xff\xff\xff\xff") // array32 bomb inside a frame
	f.Fuzz(func(t *testing.T, blob string) {
		var out []store.AttemptError
		var err error
		checkAlloc(t, len(blob), allocated(func() { out, err = decodeHistory(blob) }))
		if err != nil {
			return
		}
		if len(out) > store.MaxErrorHistory {
			t.Fatalf("decoded %d records, more than MaxErrorHistory", len(out))
		}
		var sb strings.Builder
		for i := range out {
			if out[i].Attempt < 0 {
				return // the encoder stores negative attempts as 0
			}
			sb.WriteString(historyFrame(out[i].At.UnixMilli(), &out[i]))
		}
		again, err := decodeHistory(sb.String())
		if err != nil {
			t.Fatalf("re-encoded history does not decode: %v", err)
		}
		if len(again) != len(out) {
			t.Fatalf("round trip gave %d records, want %d", len(again), len(out))
		}
		for i := range out {
			a, b := out[i], again[i]
			if a.Attempt != b.Attempt || !a.At.Equal(b.At) || a.Error != b.Error || a.Stack != b.Stack {
				t.Fatalf("record %d changed in a round trip:\n%+v\n%+v", i, a, b)
			}
		}
	})
}

func FuzzParseAttInfo(f *testing.F) {
	f.Add("0,0,0,0")
	f.Add("3,1700000000123,42,1700000000000")
	f.Add("1,2,3")
	f.Add("-1,x,99999999999999999999999,5,extra")
	f.Fuzz(func(t *testing.T, v string) {
		a := parseAttInfo(v)
		s := strconv.Itoa(a.attempt) + "," + strconv.FormatInt(a.claimedMs, 10) + "," +
			strconv.FormatUint(a.token, 10) + "," + strconv.FormatInt(a.readyMs, 10)
		if b := parseAttInfo(s); b != a {
			t.Fatalf("round trip of %+v through %q gave %+v", a, s, b)
		}
	})
}

// sameWorker compares worker records field by field, times as instants.
func sameWorker(a, b store.WorkerInfo) bool {
	if a.ID != b.ID || a.Host != b.Host || a.PID != b.PID || a.Concurrency != b.Concurrency ||
		!a.StartedAt.Equal(b.StartedAt) || !a.HeartbeatAt.Equal(b.HeartbeatAt) ||
		!maps.Equal(a.Queues, b.Queues) || (a.Queues == nil) != (b.Queues == nil) || len(a.Running) != len(b.Running) {
		return false
	}
	for i, r := range a.Running {
		o := b.Running[i]
		if r.Queue != o.Queue || r.ID != o.ID || r.Kind != o.Kind || !r.StartedAt.Equal(o.StartedAt) {
			return false
		}
	}
	return true
}

func workerValue(f *testing.F, ms int64, rec workerRecord) string {
	b, err := msgpack.Marshal(&rec)
	if err != nil {
		f.Fatal(err)
	}
	return strconv.FormatInt(ms, 10) + "," + string(b)
}

func FuzzDecodeWorker(f *testing.F) {
	start := time.Unix(1700000000, 0)
	f.Add(workerValue(f, 1, workerRecord{ID: "w1"}))
	f.Add(workerValue(f, 1700000000999, workerRecord{ID: "host-1-42", Host: "host-1", PID: 42,
		Queues: map[string]int{"default": 1, "mail": 3}, Concurrency: 64, StartedAt: start,
		Running: []runningJob{{Queue: "mail", ID: "j1", Kind: "send_email", StartedAt: start}}}))
	f.Add("1,\x81\xa1r\xdd\xff\xff\xff\xff")         // Running claiming 4G jobs
	f.Add("1,\x81\xa1q\xdf\xff\xff\xff\xff")         // Queues claiming 4G entries
	f.Add("1,\x81\xa1r\xdd\x00\x0f\xff\xff\x80\x80") // Running claiming 1M jobs, two present
	f.Fuzz(func(t *testing.T, v string) {
		var w store.WorkerInfo
		var err error
		checkAlloc(t, len(v), allocated(func() { w, err = decodeWorker(v) }))
		if err != nil {
			return
		}
		rec := workerRecord{ID: w.ID, Host: w.Host, PID: w.PID, Queues: w.Queues, Concurrency: w.Concurrency, StartedAt: w.StartedAt}
		for _, r := range w.Running {
			rec.Running = append(rec.Running, runningJob(r))
		}
		b, err := msgpack.Marshal(&rec)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := decodeWorker(strconv.FormatInt(w.HeartbeatAt.UnixMilli(), 10) + "," + string(b))
		if err != nil {
			t.Fatalf("re-encoded worker does not decode: %v", err)
		}
		if !sameWorker(w, again) {
			t.Fatalf("round trip changed the worker:\n%+v\n%+v", w, again)
		}
	})
}

func FuzzDecodeSchedule(f *testing.F) {
	for _, r := range []scheduleRecord{{}, {Name: "nightly", Spec: "0 3 * * *", Queue: "default", Kind: "report", Next: time.Unix(1700000000, 0)}} {
		b, err := msgpack.Marshal(&r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("\x81\xa1n\xdb\xff\xff\xff\xff")             // name claiming 4 GB
	f.Add("\x81\xa1x\xc7\xff\xff\xff\xff\x01\x02\x03") // time extension claiming 4 GB
	f.Fuzz(func(t *testing.T, v string) {
		var si store.ScheduleInfo
		var err error
		checkAlloc(t, len(v), allocated(func() { si, err = decodeSchedule(v) }))
		if err != nil {
			return
		}
		b, err := msgpack.Marshal(&scheduleRecord{Name: si.Name, Spec: si.Spec, Queue: si.Queue, Kind: si.Kind, Next: si.Next})
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := decodeSchedule(string(b))
		if err != nil {
			t.Fatalf("re-encoded schedule does not decode: %v", err)
		}
		if again.Name != si.Name || again.Spec != si.Spec || again.Queue != si.Queue || again.Kind != si.Kind || !again.Next.Equal(si.Next) {
			t.Fatalf("round trip changed the schedule:\n%+v\n%+v", si, again)
		}
	})
}
