package redistest

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Certs is a throwaway certificate authority and two certificates it
// signed, as PEM files made by the openssl command: one for a server on
// 127.0.0.1 or localhost, one for a client. Keys are ECDSA P-256,
// unencrypted; certificates are valid for two days. Its fields are file
// paths; a Certs is read-only once made and safe for concurrent use.
type Certs struct {
	// Dir holds every file.
	Dir string
	// CAFile is the authority's certificate, which servers and clients
	// that use these certificates trust.
	CAFile string
	// ServerCertFile and ServerKeyFile are the server's certificate (for
	// IP 127.0.0.1 and DNS localhost, extended key usage serverAuth) and
	// its key.
	ServerCertFile, ServerKeyFile string
	// ClientCertFile and ClientKeyFile are the client's certificate
	// (extended key usage clientAuth) and its key.
	ClientCertFile, ClientKeyFile string
}

// opensslConfig is the openssl configuration the certificates are made
// with: its own file, so that the system's openssl.cnf adds nothing.
const opensslConfig = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = hopper test
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
[client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
`

// MakeCerts makes a new authority and its server and client certificates
// in a directory of t.TempDir. Each call makes a different authority, so
// the certificates of one call are unknown to the others (for tests of an
// untrusted client or server). When openssl is missing, t is skipped, or
// failed when CI=true.
func MakeCerts(t testing.TB) *Certs {
	t.Helper()
	bin := requireOpenSSL(t)
	dir := t.TempDir()
	c := &Certs{
		Dir:            dir,
		CAFile:         filepath.Join(dir, "ca.crt"),
		ServerCertFile: filepath.Join(dir, "server.crt"),
		ServerKeyFile:  filepath.Join(dir, "server.key"),
		ClientCertFile: filepath.Join(dir, "client.crt"),
		ClientKeyFile:  filepath.Join(dir, "client.key"),
	}
	cnf := filepath.Join(dir, "openssl.cnf")
	if err := os.WriteFile(cnf, []byte(opensslConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	caKey := filepath.Join(dir, "ca.key")
	newKey := []string{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("redistest: openssl %v: %v\n%s", args, err, out)
		}
	}
	run(append([]string{"req", "-x509", "-config", cnf, "-extensions", "ca", "-days", "2",
		"-subj", "/CN=hopper test CA " + randomHex(t), "-keyout", caKey, "-out", c.CAFile}, newKey...)...)
	for _, leaf := range []struct{ ext, cn, cert, key string }{
		{"server", "localhost", c.ServerCertFile, c.ServerKeyFile},
		{"client", "hopper test client", c.ClientCertFile, c.ClientKeyFile},
	} {
		csr := filepath.Join(dir, leaf.ext+".csr")
		run(append([]string{"req", "-new", "-config", cnf, "-subj", "/CN=" + leaf.cn,
			"-keyout", leaf.key, "-out", csr}, newKey...)...)
		run("x509", "-req", "-in", csr, "-CA", c.CAFile, "-CAkey", caKey, "-set_serial", "0x"+randomHex(t),
			"-days", "2", "-extfile", cnf, "-extensions", leaf.ext, "-out", leaf.cert)
	}
	return c
}

// requireOpenSSL returns the path of the openssl command, or ends the
// test: a skip on a developer machine, a failure under CI.
func requireOpenSSL(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("openssl")
	if err == nil {
		return path
	}
	msg := "redistest: openssl not found on PATH; the TLS tests make their certificates with it (apt-get install openssl)"
	if inCI() {
		t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
	}
	t.Skip(msg)
	return ""
}

// randomHex returns 16 random hex digits, for serial numbers and names.
func randomHex(t testing.TB) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[0] &= 0x7f // a positive serial number
	return hex.EncodeToString(b[:])
}

// ClientTLS returns a client configuration that trusts c's authority,
// checks the server's certificate for 127.0.0.1, and presents c's client
// certificate. Each call returns a new *tls.Config the caller may change.
func (c *Certs) ClientTLS(t testing.TB) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("redistest: no certificate in %s", c.CAFile)
	}
	cert, err := tls.LoadX509KeyPair(c.ClientCertFile, c.ClientKeyFile)
	if err != nil {
		t.Fatal(fmt.Errorf("redistest: client certificate: %w", err))
	}
	return &tls.Config{
		RootCAs:      pool,
		Certificates: []tls.Certificate{cert},
		ServerName:   "127.0.0.1",
		MinVersion:   tls.VersionTLS12,
	}
}
