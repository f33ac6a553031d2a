package redisstore

import (
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// A record written by the release before storedCodec (vmihailenco/msgpack,
// Retention under "rt") still decodes, whole.
func TestStoredRecordWrittenBefore(t *testing.T) {
	old, _ := hex.DecodeString("8da16ea76e696768746c79a171a46d61696ca173a940657665727920356da170c3a163c3a175d30000018bcfe5687ba16baa73656e645f656d61696ca161c40481a16e07a16d81a16ba176a17203a174d300000014f46b0400a27274d30000034630b8a000a2707202")
	var r storedRecord
	if n, err := storedCodec.Decode(string(old), &r); err != nil || n != len(old) {
		t.Fatalf("Decode = %d of %d bytes, %v", n, len(old), err)
	}
	want := storedRecord{Name: "nightly", Spec: "@every 5m", Paused: true, CatchUp: true, UpdatedAt: time.UnixMilli(1700000000123),
		Job: store.NewJob{Queue: "mail", Kind: "send_email", Args: []byte{0x81, 0xa1, 'n', 7}, JobSpec: store.JobSpec{
			Meta: map[string]string{"k": "v"}, MaxRetries: 3, Timeout: 90 * time.Second, Retention: time.Hour, Priority: 2}}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", r, want)
	}
}
