package redistest

import (
	"crypto/tls"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TLSServer is a redis-server that speaks only TLS, with mutual TLS: it
// presents Certs' server certificate and refuses clients that do not
// present a certificate signed by Certs' authority. Its methods are those
// of Server, with Config and Client set up for TLS.
type TLSServer struct {
	*Server
	// Certs are the certificates the server and its clients use.
	Certs *Certs

	clientTLS *tls.Config
}

// StartTLS starts a redis-server of t's own that listens only on a TLS port
// (--port 0 --tls-port), with new certificates from MakeCerts and
// tls-auth-clients yes, and stops it in t.Cleanup. opts apply as for Start
// (Args adds redis-server arguments, such as "--tls-auth-clients",
// "optional"); the server is always private. Stop and Restart work as for
// Start's private servers. When redis-server or openssl is missing, t is
// skipped, or failed when CI=true.
func StartTLS(t testing.TB, opts ...Option) *TLSServer {
	t.Helper()
	cfg := newConfig(opts)
	cfg.requireServerOptions(t, "StartTLS")
	bin := requireBinary(t, "redis-server")
	certs := MakeCerts(t)
	clientTLS := certs.ClientTLS(t)
	dir := t.TempDir()
	var errs []error
	for range startAttempts {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		args := cfg.serverArgs(0, dir,
			"--tls-port", itoa(port),
			"--tls-cert-file", certs.ServerCertFile,
			"--tls-key-file", certs.ServerKeyFile,
			"--tls-ca-cert-file", certs.CAFile,
			"--tls-auth-clients", "yes",
		)
		p := &process{bin: bin, args: args, dir: dir, port: port, tls: clientTLS}
		if err := p.start(); err != nil {
			errs = append(errs, err)
			continue
		}
		s := &TLSServer{Server: &Server{Addr: p.addr(), Dir: dir, proc: p}, Certs: certs, clientTLS: clientTLS}
		t.Cleanup(func() {
			if err := s.stop(); err != nil {
				t.Error(err)
			}
		})
		return s
	}
	t.Fatal(errors.Join(errs...))
	return nil
}

// Config returns client options for the server, as Server.Options does,
// with a TLSConfig from Certs.ClientTLS: it trusts the authority and
// presents the client certificate. Callers may change the copy they get,
// its TLSConfig included.
func (s *TLSServer) Options() *redis.Options {
	o := s.Server.Options()
	o.TLSConfig = s.clientTLS.Clone()
	return o
}

// Client returns a new TLS client of the server, closed in t.Cleanup.
// configure, when given, adjusts the options first (such as removing the
// client certificate from TLSConfig).
func (s *TLSServer) Client(t testing.TB, configure ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := s.Options()
	for _, f := range configure {
		f(o)
	}
	rdb := redis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
