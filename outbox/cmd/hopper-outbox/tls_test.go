package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox/internal/pgtest"
)

// TestRedisTLSFlags: the relay takes the --redis-tls-* flags as the hopper
// command does, so it reaches a Redis with a private CA and
// tls-auth-clients yes; without the client certificate it fails with one
// line saying which flags would help, and the flags with a plain redis://
// URL are bad usage, before anything connects.
func TestRedisTLSFlags(t *testing.T) {
	certs := redistest.MakeCerts(t)
	r := runProgram(t, nil, "relay", "--postgres", noPostgres, "--redis", "redis://localhost:6379/0", "--redis-tls-ca", certs.CAFile)
	line, rest, _ := strings.Cut(r.stderr, "\n")
	want := `hopper outbox relay: --redis-tls-ca applies to TLS only, and --redis "redis://localhost:6379/0" is plain: write rediss:// for TLS`
	if r.code != 2 || line != want || !strings.HasPrefix(rest, "\nusage: hopper outbox relay ") {
		t.Errorf("relay with --redis-tls-ca and redis://: exit %d, want 2 with the line %q and the usage; got\n%s", r.code, want, r.stderr)
	}
	r = runProgram(t, []string{"HOPPER_REDIS_TLS_CERT=" + certs.ClientCertFile}, "relay", "--postgres", noPostgres, "--redis", "rediss://localhost:1/0")
	want = "hopper outbox relay: --redis-tls-cert (from $HOPPER_REDIS_TLS_CERT) needs --redis-tls-key: the client certificate and its key go together"
	if line, _, _ := strings.Cut(r.stderr, "\n"); r.code != 2 || line != want {
		t.Errorf("relay with $HOPPER_REDIS_TLS_CERT alone: exit %d, want 2 with the line %q; got\n%s", r.code, want, r.stderr)
	}

	pgURL := pgtest.DB(t)
	srv := redistest.StartTLS(t)
	pg := []string{"--postgres", pgURL}
	url := "rediss://" + srv.Addr + "/0"
	rd := []string{"--redis", url, "--redis-prefix", redistest.Prefix(t), "--redis-tls-ca", srv.Certs.CAFile}
	var out, errs syncBuffer
	if code := run(t.Context(), &out, &errs, append([]string{"migrate"}, pg...)); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, errs.String())
	}

	r = runProgram(t, nil, append(append([]string{"relay"}, pg...), rd...)...)
	want = "hopper outbox relay: cannot reach Redis at " + url + ": remote error: tls: certificate required; the server asks for a client certificate (tls-auth-clients); give it with --redis-tls-cert FILE and --redis-tls-key FILE\n"
	if r.code != 1 || r.stdout != "" || r.stderr != want {
		t.Errorf("relay without the client certificate: exit %d, want 1 with stderr %q; got\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}

	rd = append(rd, "--redis-tls-cert", srv.Certs.ClientCertFile, "--redis-tls-key", srv.Certs.ClientKeyFile)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan int, 1)
	var relayOut, relayErr syncBuffer
	go func() {
		done <- run(ctx, &relayOut, &relayErr, append(append([]string{"relay", "--poll", "50ms"}, pg...), rd...))
	}()
	testutil.EventuallyTrue(t, testutil.Wait, "the relay to start over mutual TLS", func() bool {
		select {
		case code := <-done:
			done <- code
			return true
		default:
			return strings.Contains(relayOut.String(), "relaying ")
		}
	})
	stop()
	if code := testutil.Receive(t, done, testutil.Wait, "relay to stop"); code != 0 || !strings.Contains(relayOut.String(), "to Redis "+url) {
		t.Fatalf("relay over mutual TLS: exit %d, want 0 after it started; stdout:\n%s\nstderr:\n%s", code, relayOut.String(), relayErr.String())
	}
}
