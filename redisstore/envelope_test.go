package redisstore

import (
	"bytes"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/store"
	"github.com/vmihailenco/msgpack/v5"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	long := strings.Repeat("x", 70000)
	for _, j := range []*store.NewJob{
		{Kind: "k", Args: nil},
		{Kind: "bench", Args: []byte("args"), JobSpec: store.JobSpec{MaxRetries: 25, Timeout: 90 * time.Second, Retention: time.Hour}},
		{Kind: "ünïcode ✓", Args: []byte{0, 0xff, 0xc0}, JobSpec: store.JobSpec{Timeout: 1500 * time.Microsecond, UniqueKey: "u", Meta: map[string]string{"traceparent": "00-abc-01", "": "", "k": long}}},
		{Kind: strings.Repeat("k", 255), Args: bytes.Repeat([]byte{7}, 300), JobSpec: store.JobSpec{MaxRetries: store.MaxRetriesLimit, Timeout: time.Nanosecond}},
	} {
		// A lone Enqueue writes the value in room of its own (oneJob.value),
		// whether it fits there or not.
		for _, b := range [][]byte{encodeValue(j), encodeValueIn(j, new(oneJob).value[:0])} {
			v := "1700000000123," + string(b)
			var rec store.JobRecord
			if err := decodeValue(v, &rec); err != nil {
				t.Fatalf("decodeValue(encodeValue(%+v)): %v", j, err)
			}
			if rec.Kind != j.Kind || !bytes.Equal(rec.Args, j.Args) || rec.MaxRetries != j.MaxRetries ||
				rec.Timeout != j.Timeout || rec.Retention != j.Retention || rec.UniqueKey != j.UniqueKey ||
				!maps.Equal(rec.Meta, j.Meta) || rec.EnqueuedAt.UnixMilli() != 1700000000123 {
				t.Fatalf("round trip of %+v gave %+v", j, rec)
			}
		}
	}
}

// A workflow task's job stores true for its Meta, which the ID gives back;
// a job whose Meta only looks like a task's keeps its map.
func TestEnvelopeTaskMeta(t *testing.T) {
	task := map[string]string{store.MetaWorkflow: "wf1", store.MetaTask: "resize"}
	for _, c := range []struct {
		id      string
		meta    map[string]string
		compact bool
	}{
		{store.TaskJobID("wf1", "resize"), task, true},
		{store.TaskJobID("wf1", "other"), task, false}, // the ID names another task
		{"plain", task, false},
		{store.TaskJobID("wf1", "resize"), map[string]string{store.MetaWorkflow: "wf1", store.MetaTask: "resize", "traceparent": "00-1-01"}, false},
	} {
		j := &store.NewJob{ID: c.id, Kind: "k", JobSpec: store.JobSpec{Meta: c.meta}}
		v := string(encodeValue(j))
		if compact := strings.HasSuffix(v, "\xc3"); compact != c.compact {
			t.Errorf("job %q with Meta %v: value %q, want compact %v", c.id, c.meta, v, c.compact)
		}
		rec := store.JobRecord{ID: c.id}
		if err := decodeValue("1,"+v, &rec); err != nil {
			t.Fatalf("job %q: %v", c.id, err)
		}
		if !maps.Equal(rec.Meta, c.meta) {
			t.Errorf("job %q: Meta %v after the round trip, want %v", c.id, rec.Meta, c.meta)
		}
	}
	// A compact Meta under an ID that names no task is corrupt.
	v := string(encodeValue(&store.NewJob{ID: store.TaskJobID("wf1", "resize"), Kind: "k", JobSpec: store.JobSpec{Meta: task}}))
	rec := store.JobRecord{ID: "plain"}
	if err := decodeValue("1,"+v, &rec); err == nil {
		t.Errorf("compact task Meta under ID %q decoded as %v, want an error", rec.ID, rec.Meta)
	}
}

// The envelope is plain msgpack: any msgpack library reads it.
func TestEnvelopeIsMsgpack(t *testing.T) {
	j := &store.NewJob{Kind: "k", Args: []byte("a"), JobSpec: store.JobSpec{MaxRetries: 3, Timeout: time.Second, Meta: map[string]string{"m": "v"}}}
	v := string(encodeValue(j))
	_, env, _ := strings.Cut(v, ",")
	var fields []any
	if err := msgpack.Unmarshal([]byte(env), &fields); err != nil {
		t.Fatalf("msgpack.Unmarshal: %v", err)
	}
	if len(fields) != envelopeFields || fields[0] != "k" {
		t.Fatalf("decoded envelope %v, want %d fields starting with the kind", fields, envelopeFields)
	}
}

// A newer envelope with more fields still decodes.
func TestEnvelopeExtraFields(t *testing.T) {
	b := []byte("12,3,")
	b = mpack.AppendArrayHeader(b, envelopeFields+2)
	b = mpack.AppendStr(b, "kind")
	b = mpack.AppendBin(b, []byte("args"))
	b = mpack.AppendInt(b, 5)
	b = mpack.AppendInt(b, 0)
	b = mpack.AppendStr(b, "")
	b = mpack.AppendNil(b)
	b = mpack.AppendMapHeader(b, 1)
	b = mpack.AppendStr(b, "x")
	b = mpack.AppendArrayHeader(b, 2)
	b = mpack.AppendInt(b, -70000)
	b = mpack.AppendInt(b, 1<<40)
	b = mpack.AppendStr(b, "new field")
	var rec store.JobRecord
	if err := decodeValue(string(b), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Kind != "kind" || string(rec.Args) != "args" || rec.Timeout != 5*time.Millisecond || rec.MaxRetries != 3 {
		t.Fatalf("decoded %+v", rec)
	}
}

func TestAppendIntDecodes(t *testing.T) {
	for _, n := range []int64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, -1, -32, -33, -128, -129, -1 << 31, -1<<31 - 1, 1<<63 - 1, -1 << 63} {
		r := newReader(string(mpack.AppendInt(nil, n)))
		if got := r.int(); got != n || r.Err() != nil || r.Len() != 0 {
			t.Errorf("mpack.AppendInt(%d) read back as %d (err %v, %d bytes left)", n, got, r.Err(), r.Len())
		}
	}
}

func TestHistoryDecode(t *testing.T) {
	// Build what append_error writes: bin32 frames of [at, attempt, error, stack].
	var blob []byte
	for i := 1; i <= 3; i++ {
		body := mpack.AppendArrayHeader(nil, 4)
		body = mpack.AppendInt(body, 1700000000000+int64(i))
		body = append(body, encodeErrorRest(&store.AttemptError{Attempt: i, Error: "boom", Stack: "stack"})...)
		blob = append(blob, 0xc6, 0, 0, 0, byte(len(body)))
		blob = append(blob, body...)
	}
	h, err := decodeHistory(string(blob))
	if err != nil || len(h) != 3 {
		t.Fatalf("decodeHistory: %v, %d errors", err, len(h))
	}
	for i, e := range h {
		if e.Attempt != i+1 || e.Error != "boom" || e.Stack != "stack" || e.At.UnixMilli() != 1700000000001+int64(i) {
			t.Fatalf("error %d = %+v", i, e)
		}
	}
	if _, err := decodeHistory(string(blob[:len(blob)-1])); err == nil {
		t.Fatal("decodeHistory of a truncated blob: no error")
	}
}

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		info         string
		major, minor int
		ok           bool
	}{
		{"# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:0\r\n", 7, 0, true},
		{"redis_version:6.2.14\r\n", 6, 2, true},
		{"redis_version:8.2.1\n", 8, 2, true},
		{"# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n", 7, 2, true},
		{"redis_version:255.255.255\r\n", 255, 255, true},
		{"redis_version:7\r\n", 0, 0, false},
		{"redis_version:x.y.z\r\n", 0, 0, false},
		{"no version here", 0, 0, false},
	} {
		major, minor, ok := parseVersion(c.info)
		if major != c.major || minor != c.minor || ok != c.ok {
			t.Errorf("parseVersion(%q) = %d, %d, %v; want %d, %d, %v", c.info, major, minor, ok, c.major, c.minor, c.ok)
		}
	}
}

func TestLockField(t *testing.T) {
	short, long1, long2 := lockField("k"), lockField(strings.Repeat("a", 1024)), lockField(strings.Repeat("a", 1023)+"b")
	if short != "=k" {
		t.Fatalf("lockField(k) = %q", short)
	}
	if len(long1) != len(long2) || len(long1) > 44 || long1 == long2 {
		t.Fatalf("long keys gave %q and %q, want distinct fixed-length fields", long1, long2)
	}
	if lockField(long1) == long1 {
		t.Fatalf("a short key equal to a hashed field collides with it")
	}
}

// envelopeBenchJobs are the shapes the envelope benchmarks encode: a plain
// job, one with trace context, and one with a unique key and a priority.
func envelopeBenchJobs() map[string]*store.NewJob {
	args := bytes.Repeat([]byte{0xa5}, 120)
	return map[string]*store.NewJob{
		"plain":  {ID: "01HZX3Q4V8W7K2M9P5R6T", Kind: "send_email", Args: args, JobSpec: store.JobSpec{MaxRetries: 25}},
		"meta":   {ID: "01HZX3Q4V8W7K2M9P5R6T", Kind: "send_email", Args: args, JobSpec: store.JobSpec{MaxRetries: 25, Timeout: time.Minute, Meta: map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}},
		"unique": {ID: "01HZX3Q4V8W7K2M9P5R6T", Kind: "send_email", Args: args, JobSpec: store.JobSpec{MaxRetries: 25, Priority: 2, UniqueKey: "send_email:4f1c2a", UniqueFor: time.Hour}},
	}
}

func BenchmarkEnvelopeEncode(b *testing.B) {
	for _, name := range []string{"plain", "meta", "unique"} {
		j := envelopeBenchJobs()[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				encodeValue(j)
			}
		})
	}
}

func BenchmarkEnvelopeDecode(b *testing.B) {
	for _, name := range []string{"plain", "meta", "unique"} {
		j := envelopeBenchJobs()[name]
		v := "1700000000123," + string(encodeValue(j))
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			rec := new(store.JobRecord) // on the heap, as the stores' records are
			for b.Loop() {
				*rec = store.JobRecord{ID: j.ID}
				if err := decodeValue(v, rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Values written before the options element existed decode, and a job
// that uses no option of that element is written exactly as before.
func TestEnvelopeWrittenBefore(t *testing.T) {
	for _, c := range []struct {
		old string
		job store.NewJob
	}{
		{"3p2,\x96\xa4send\xc4\x04\x81\xa1n\a\xcd\x05\xdc\xce\x006\ue021u\x81\xa1k\xa1v",
			store.NewJob{ID: "id1", Kind: "send", Args: []byte{0x81, 0xa1, 'n', 7}, JobSpec: store.JobSpec{MaxRetries: 3, Priority: 2,
				Timeout: 1500 * time.Millisecond, Retention: time.Hour, UniqueKey: "u", Meta: map[string]string{"k": "v"}}}},
		{"0gtenant-7,\x96\xa4send\xc4\x01\x01\x00\x00\xa0\xc0",
			store.NewJob{ID: "id1", Kind: "send", Args: []byte{1}, JobSpec: store.JobSpec{Group: "tenant-7"}}},
	} {
		rec := store.JobRecord{ID: c.job.ID}
		if err := decodeValue("1700000000123,"+c.old, &rec); err != nil {
			t.Fatalf("decodeValue(%q): %v", c.old, err)
		}
		if rec.Kind != c.job.Kind || !bytes.Equal(rec.Args, c.job.Args) || !reflect.DeepEqual(rec.JobSpec, c.job.JobSpec) {
			t.Errorf("decoded %q as %+v, want %+v", c.old, rec, c.job)
		}
		if got := string(encodeValue(&c.job)); got != c.old {
			t.Errorf("encodeValue(%+v) = %q, written before as %q", c.job, got, c.old)
		}
	}
}

// The options element carries UniqueFor (and any field added to JobSpec),
// after the six fixed fields: the prefix and the kind, which Lua reads,
// do not move.
func TestEnvelopeOptions(t *testing.T) {
	j := &store.NewJob{ID: "id1", Kind: "send", Args: []byte{1}, JobSpec: store.JobSpec{MaxRetries: 3, Priority: -1, UniqueKey: "u", UniqueFor: 90 * time.Second}}
	v := string(encodeValue(j))
	if !strings.HasPrefix(v, "3p-1,\x97\xa4send") {
		t.Fatalf("value %q: want the prefix, a seven-element array and the kind first", v)
	}
	var fields []any
	if err := msgpack.Unmarshal([]byte(v[strings.IndexByte(v, ',')+1:]), &fields); err != nil || len(fields) != envelopeFields+1 {
		t.Fatalf("msgpack reads %v (%v), want %d elements", fields, err, envelopeFields+1)
	}
	rec := store.JobRecord{ID: j.ID}
	if err := decodeValue("1,"+v, &rec); err != nil || !reflect.DeepEqual(rec.JobSpec, j.JobSpec) {
		t.Fatalf("decoded %+v (%v), want %+v", rec.JobSpec, err, j.JobSpec)
	}
	// A corrupt options element is corrupt.
	bad := strings.Replace(v, "\xa2uf", "\xa2uf\xa1", 1)
	if err := decodeValue("1,"+bad, &rec); err == nil {
		t.Errorf("decodeValue(%q) = nil, want an error", bad)
	}
}
