package hopper

import (
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// Bytes the previous release wrote (its preparedWire, through
// vmihailenco/msgpack) read back whole.
func TestPreparedWrittenBefore(t *testing.T) {
	job := store.NewJob{ID: "01HZX3Q4V8W7K2M9P5R6T", Queue: "mail", Kind: "send_email", Args: []byte{0x81, 0xa1, 'n', 7},
		JobSpec: store.JobSpec{Meta: map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
			MaxRetries: 9, Timeout: 90 * time.Second, Retention: time.Hour, UniqueKey: "send_email:abc", UniqueFor: 10 * time.Minute, Priority: -2},
		RunAt: time.UnixMilli(1900000000123)}
	grouped := job
	grouped.Priority, grouped.Group = 0, "tenant-7"
	for _, c := range []struct {
		hex  string
		want store.NewJob
	}{
		{"018ca26964b53031485a58335134563857374b324d395035523654a171a46d61696ca16baa73656e645f656d61696ca161c40481a16e07a16d81ab7472616365706172656e74d93730302d30616637363531393136636434336464383434386562323131633830333139632d623761643662373136393230333333312d3031a17209a174d300000014f46b0400a26174d3000001ba60d3387ba3726574d30000034630b8a000a2756bae73656e645f656d61696c3a616263a27566d30000008bb2c97000a27072fe", job},
		{"018ca26964b53031485a58335134563857374b324d395035523654a171a46d61696ca16baa73656e645f656d61696ca161c40481a16e07a16d81ab7472616365706172656e74d93730302d30616637363531393136636434336464383434386562323131633830333139632d623761643662373136393230333333312d3031a17209a174d300000014f46b0400a26174d3000001ba60d3387ba3726574d30000034630b8a000a2756bae73656e645f656d61696c3a616263a27566d30000008bb2c97000a167a874656e616e742d37", grouped},
	} {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		var p PreparedJob
		if err := p.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.job, c.want) {
			t.Errorf("decoded\n%+v\nwant\n%+v", p.job, c.want)
		}
	}
}

// Replace, which the previous format left out, survives marshalling.
func TestPreparedKeepsReplace(t *testing.T) {
	p := &PreparedJob{job: store.NewJob{ID: "j", Queue: "q", Kind: "k", Replace: store.ReplaceArgs | store.ReplaceRunAt, JobSpec: store.JobSpec{Meta: map[string]string{}}}}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q PreparedJob
	if err := q.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(q.job, p.job) {
		t.Fatalf("round trip gave %+v (%v), want %+v", q.job, err, p.job)
	}
}

// Bytes from outside (an outbox row) never panic, and what decodes
// encodes again to the same job.
func FuzzPreparedUnmarshal(f *testing.F) {
	p := &PreparedJob{job: store.NewJob{ID: "j", Queue: "q", Kind: "k", Args: []byte{1}, Replace: store.ReplaceArgs,
		JobSpec: store.JobSpec{Meta: map[string]string{"k": "v"}, Group: "g", UniqueKey: "u", UniqueFor: time.Second}, RunAt: time.UnixMilli(5)}}
	b, _ := p.MarshalBinary()
	f.Add(b)
	f.Add([]byte{1, 0x81, 0xa2, 'i', 'd', 0xc0})
	f.Add([]byte{1, 0x83, 0xa2, 'i', 'd', 0xa1, 'j', 0xa1, 'a', 0xc4, 0, 0xa1, 'm', 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		var p PreparedJob
		if p.UnmarshalBinary(b) != nil {
			return
		}
		again, _ := p.MarshalBinary()
		var q PreparedJob
		if err := q.UnmarshalBinary(again); err != nil || !reflect.DeepEqual(q.job, p.job) {
			t.Fatalf("re-encoded %#v as %#v (%v)", p.job, q.job, err)
		}
	})
}
