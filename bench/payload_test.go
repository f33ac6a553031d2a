package main

import (
	"bytes"
	"testing"
)

// TestPayloadRoundTrip checks that payloads are 72 bytes and decode to
// what was encoded.
func TestPayloadRoundTrip(t *testing.T) {
	tests := []struct {
		id      uint32
		ts, due int64
	}{
		{0, 0, 0},
		{42, 1_700_000_000_123_456_789, 1_700_000_002_123_456_789},
		{4_294_967_295, 9_223_372_036_854_775_807, 9_223_372_036_854_775_807},
	}
	for _, tt := range tests {
		p := encodePayload(tt.id, tt.ts, tt.due)
		if len(p) != payloadSize {
			t.Fatalf("payload %q is %d bytes", p, len(p))
		}
		id, ts, due, ok := decodePayload(p)
		if !ok || id != tt.id || ts != tt.ts || due != tt.due {
			t.Errorf("decode(%q) = %d, %d, %d, %v", p, id, ts, due, ok)
		}
	}
}

// TestPayloadForeign checks that payloads the benchmark did not make are
// rejected.
func TestPayloadForeign(t *testing.T) {
	good := encodePayload(1, 2, 3)
	tests := map[string][]byte{
		"empty":      nil,
		"short":      good[:71],
		"long":       append(bytes.Clone(good), 'x'),
		"prefix":     append([]byte("HOPPERBENCH"), good[11:]...),
		"non-digits": bytes.Replace(bytes.Clone(good), []byte("0000000001"), []byte("000000000x"), 1),
	}
	for name, p := range tests {
		if _, _, _, ok := decodePayload(p); ok {
			t.Errorf("%s: %q accepted", name, p)
		}
	}
}
