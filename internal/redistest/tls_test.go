package redistest

import (
	"crypto/x509"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestStartTLS(t *testing.T) {
	s := StartTLS(t)
	ctx := t.Context()
	if err := s.Client(t).Ping(ctx).Err(); err != nil {
		t.Fatalf("PING over mutual TLS: %v", err)
	}
	plain := s.Server.Client(t, func(o *redis.Options) { o.MaxRetries = -1 })
	if err := plain.Ping(ctx).Err(); err == nil {
		t.Fatal("PING without TLS answered: the server listens on a plain port")
	}
	noCert := s.Client(t, func(o *redis.Options) { o.TLSConfig.Certificates = nil; o.MaxRetries = -1 })
	if err := noCert.Ping(ctx).Err(); err == nil {
		t.Fatal("PING over TLS without a client certificate answered: mutual TLS is off")
	}

	// The certificates chain to their authority and to nothing else.
	other := MakeCerts(t)
	for _, c := range []struct {
		certs *Certs
		ok    bool
	}{{s.Certs, true}, {other, false}} {
		pem, err := os.ReadFile(c.certs.CAFile)
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		cert := s.clientTLS.Certificates[0].Leaf
		_, err = cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if (err == nil) != c.ok {
			t.Errorf("client certificate verified against %s: %v, want ok=%v", c.certs.CAFile, err, c.ok)
		}
	}
}
