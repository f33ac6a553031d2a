package main

import (
	"bytes"
	"fmt"
	"strconv"
)

// payloadSize is the size of every job's payload in bytes.
const payloadSize = 72

// payloadPrefix starts every payload, so a delivery of something the
// benchmark did not enqueue is recognised as foreign.
var payloadPrefix = []byte("hopperbench id=")

// Byte offsets of the three fixed-width fields inside a payload.
const (
	idAt  = 15 // 10 digits: the job number
	tsAt  = 29 // 19 digits: unix ns taken just before Enqueue
	dueAt = 53 // 19 digits: unix ns at which the job falls due
)

// encodePayload builds the 72-byte payload of job id, enqueued at ts (unix
// ns) and due at due (unix ns; equal to ts for a job without delay). The
// text form keeps the payload readable in redis-cli.
func encodePayload(id uint32, ts, due int64) []byte {
	p := fmt.Appendf(make([]byte, 0, payloadSize), "hopperbench id=%010d ts=%019d due=%019d", id, ts, due)
	if len(p) != payloadSize {
		panic(fmt.Sprintf("payload is %d bytes, want %d", len(p), payloadSize))
	}
	return p
}

// decodePayload reads back what encodePayload wrote; ok is false for any
// payload the benchmark did not produce.
func decodePayload(p []byte) (id uint32, ts, due int64, ok bool) {
	if len(p) != payloadSize || !bytes.HasPrefix(p, payloadPrefix) {
		return 0, 0, 0, false
	}
	n, err1 := strconv.ParseUint(string(p[idAt:idAt+10]), 10, 32)
	t, err2 := strconv.ParseInt(string(p[tsAt:tsAt+19]), 10, 64)
	d, err3 := strconv.ParseInt(string(p[dueAt:dueAt+19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, 0, false
	}
	return uint32(n), t, d, true
}
