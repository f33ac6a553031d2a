package redisurl

import (
	"crypto/tls"
	"errors"
	"flag"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestParseNoTLSFlags: without TLS flags (nil, or none set), Parse gives
// go-redis's options for the URL as they were: TLS for rediss://, none
// for redis://, one client or a Cluster's.
func TestParseNoTLSFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, name := range []string{"HOPPER_REDIS_TLS_CA", "HOPPER_REDIS_TLS_CERT", "HOPPER_REDIS_TLS_KEY", "HOPPER_REDIS_TLS_SERVER_NAME"} {
		t.Setenv(name, "")
	}
	none := AddTLSFlags(fs)
	for _, tf := range []*TLSFlags{nil, {}, none} {
		for _, tc := range []struct {
			url     string
			cluster bool
			tls     bool
		}{
			{"redis://127.0.0.1:1/0", false, false},
			{"rediss://127.0.0.1:1/0", false, true},
			{"redis://127.0.0.1:1", true, false},
			{"rediss://127.0.0.1:1", true, true},
		} {
			newClient, err := Parse(tc.url, tc.cluster, tf)
			if err != nil {
				t.Fatalf("Parse(%q, %v): %v", tc.url, tc.cluster, err)
			}
			conf := tlsConfigOf(newClient)
			if (conf != nil) != tc.tls || (conf != nil && (conf.ServerName != "127.0.0.1" || conf.RootCAs != nil || conf.Certificates != nil)) {
				t.Errorf("Parse(%q, %v) with no TLS flags: TLSConfig %+v, want TLS %v as go-redis sets it", tc.url, tc.cluster, conf, tc.tls)
			}
		}
	}
}

// TestParseServerName: --redis-tls-server-name replaces the URL's host as
// the name the server's certificate must hold, and TLS 1.2 is the least.
func TestParseServerName(t *testing.T) {
	for _, cluster := range []bool{false, true} {
		newClient, err := Parse("rediss://127.0.0.1:1", cluster, &TLSFlags{ServerName: "redis.internal"})
		if err != nil {
			t.Fatal(err)
		}
		conf := tlsConfigOf(newClient)
		if conf == nil || conf.ServerName != "redis.internal" || conf.MinVersion != tls.VersionTLS12 {
			t.Errorf("cluster %v: TLSConfig %+v, want ServerName redis.internal, TLS 1.2 at least", cluster, conf)
		}
	}
}

// TestErrorOfFlag: Error gives a TLS flag's error as it is (it names the
// flag), not as an error of --redis.
func TestErrorOfFlag(t *testing.T) {
	_, err := Parse("redis://u:secret@127.0.0.1:1/0", false, &TLSFlags{CA: "ca.pem"})
	var ferr *FlagError
	if !errors.As(err, &ferr) {
		t.Fatalf("Parse with --redis-tls-ca and redis://: %v, want a *FlagError", err)
	}
	got := Error("redis://u:secret@127.0.0.1:1/0", false, err)
	want := `--redis-tls-ca applies to TLS only, and --redis "redis://u:xxxxx@127.0.0.1:1/0" is plain: write rediss:// for TLS`
	if got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
}

// TestHintNone: an error that no TLS flag would mend gets no hint.
func TestHintNone(t *testing.T) {
	for _, err := range []error{nil, errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), &net.OpError{Op: "dial", Err: errors.New("i/o timeout")}} {
		for _, tf := range []*TLSFlags{nil, {CA: "ca.pem", Cert: "c.pem", Key: "k.pem"}} {
			if h := tf.Hint(err); h != "" {
				t.Errorf("Hint(%v) = %q, want none", err, h)
			}
		}
	}
	if h := (&TLSFlags{}).Hint(errors.New("remote error: tls: certificate required")); !strings.Contains(h, "--redis-tls-cert FILE and --redis-tls-key FILE") {
		t.Errorf("Hint(certificate required) = %q", h)
	}
}

// tlsConfigOf returns the TLS settings of the client newClient makes (a
// single server's or a Cluster's), nil for none, and closes the client.
func tlsConfigOf(newClient func() redis.UniversalClient) *tls.Config {
	rdb := newClient()
	defer rdb.Close()
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options().TLSConfig
	case *redis.ClusterClient:
		return c.Options().TLSConfig
	}
	return nil
}
