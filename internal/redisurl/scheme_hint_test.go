package redisurl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
)

// A URL of the wrong scheme gets a hint that names the right one: a plain
// redis:// URL to a server on its TLS port failed with "EOF", and a
// rediss:// URL to a plain server with "context deadline exceeded", each
// with nothing saying why (an outside trial). The right scheme gets no
// such hint.
func TestSchemeHint(t *testing.T) {
	plain := redistest.Start(t)
	secure := redistest.StartTLS(t)
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"redis:// to TLS", "redis://" + secure.Addr, "write rediss://"},
		{"rediss:// to plain", "rediss://" + plain.Addr, "write redis://"},
		{"redis:// to plain", "redis://" + plain.Addr, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk, err := Parse(tc.raw, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			rdb := mk()
			defer rdb.Close()
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			err = rdb.Ping(ctx).Err()
			h := SchemeHint(tc.raw, err)
			switch {
			case tc.want == "" && (err != nil || h != ""):
				t.Fatalf("Ping: %v, hint %q; want it to work with no hint", err, h)
			case tc.want != "" && (err == nil || !strings.Contains(h, tc.want)):
				t.Fatalf("Ping: %v, hint %q; want an error and a hint to %s", err, h, tc.want)
			}
		})
	}
}
