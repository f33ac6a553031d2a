package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dashboardURL finds the URL a dashboard command printed.
func dashboardURL(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(http://\S+/)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no URL in %q", out)
	}
	return m[1]
}

// fetch sends a request and returns its status and body.
func fetch(t *testing.T, method, u string, form url.Values, setup func(*http.Request)) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if setup != nil {
		setup(req)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestDashboardCommand(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		out, stop := c.start(t, "hopper dashboard: http://", "dashboard", "--addr", "127.0.0.1:0", "--prefix", "/ops")
		u := dashboardURL(t, out())
		if !strings.HasSuffix(u, "/ops/") || !strings.Contains(out(), "read-write, no authentication") {
			t.Errorf("start-up line %q", out())
		}
		code, body := fetch(t, "GET", u, nil, nil)
		if code != 200 || !strings.Contains(body, `href="/ops/queues/default/ready"`) {
			t.Errorf("GET %s: %d\n%.500s", u, code, body)
		}
		code, body = fetch(t, "GET", u+"jobs/default/"+ids.garbage, nil, nil)
		if code != 200 || !strings.Contains(body, "smtp: 550 no such user") || strings.Contains(body, "hunter2") {
			t.Errorf("job page: %d\n%.500s", code, body)
		}
		// Without authentication on loopback, other Host names are refused (DNS rebinding).
		if code, _ := fetch(t, "GET", u, nil, func(r *http.Request) { r.Host = "evil.example" }); code != http.StatusMisdirectedRequest {
			t.Errorf("GET with Host evil.example: %d, want 421", code)
		}
		// Actions work, and a cross-origin one is refused.
		if code, _ := fetch(t, "POST", u+"queues/default/garbage/retry", url.Values{"id": {ids.garbage}}, func(r *http.Request) {
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}); code != http.StatusForbidden {
			t.Errorf("cross-origin POST: %d, want 403", code)
		}
		if code, _ := fetch(t, "POST", u+"queues/default/garbage/retry", url.Values{"id": {ids.garbage}}, nil); code != http.StatusSeeOther {
			t.Errorf("POST retry: %d, want 303", code)
		}
		if st := state(t, c.store, ids.garbage); st != "ready" {
			t.Errorf("retried job in %q", st)
		}
		if r := stop(); r.code != 0 {
			t.Errorf("dashboard exited with %d: %s", r.code, r.stderr)
		}
	})
}

func TestDashboardCommandReadOnlyWithAuth(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		pwFile := filepath.Join(t.TempDir(), "pw")
		if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, stop := c.start(t, "hopper dashboard: http://", "dashboard", "--addr", "127.0.0.1:0", "--read-only", "--user", "ops", "--password-file", pwFile)
		defer stop()
		u := dashboardURL(t, out())
		wantOut(t, out(), "start-up line", "read-only, basic auth as ops")
		auth := func(r *http.Request) { r.SetBasicAuth("ops", "s3cret") }
		if code, _ := fetch(t, "GET", u, nil, nil); code != http.StatusUnauthorized {
			t.Errorf("GET without credentials: %d, want 401", code)
		}
		if code, _ := fetch(t, "GET", u, nil, func(r *http.Request) { r.SetBasicAuth("ops", "wrong") }); code != http.StatusUnauthorized {
			t.Errorf("GET with a wrong password: %d, want 401", code)
		}
		if code, _ := fetch(t, "GET", u, nil, auth); code != http.StatusOK {
			t.Errorf("GET with credentials: %d, want 200", code)
		}
		if code, _ := fetch(t, "POST", u+"jobs/default/"+ids.garbage+"/delete", url.Values{}, auth); code != http.StatusForbidden {
			t.Errorf("POST in read-only mode: %d, want 403", code)
		}
		if st := state(t, c.store, ids.garbage); st != "garbage" {
			t.Errorf("read-only dashboard changed the job to %q", st)
		}
	})
}

func TestDashboardCommandRefusesOpenAddressWithoutAuth(t *testing.T) {
	c := clis(t)[0]
	// Refusals of the command line are bad usage, exit 2.
	r := c.run(t, "dashboard", "--addr", "0.0.0.0:0")
	wantBadUsage(t, r, "non-loopback without auth", "hopper dashboard: refusing to listen on 0.0.0.0:0 without authentication")
	wantOut(t, r.stderr, "non-loopback without auth", "--insecure")
	r = c.run(t, "dashboard", "--addr", ":0")
	wantBadUsage(t, r, "all interfaces without auth", "hopper dashboard: refusing to listen on :0 without authentication")

	// --user without a password is refused too.
	t.Setenv(passwordEnv, "")
	r = c.run(t, "dashboard", "--addr", "0.0.0.0:0", "--user", "ops")
	wantBadUsage(t, r, "user without password", "hopper dashboard: --user needs a password")

	// With --insecure it listens, and says so.
	out, stop := c.start(t, "hopper dashboard: http://", "dashboard", "--addr", "0.0.0.0:0", "--insecure")
	wantOut(t, out(), "insecure start-up line", "NO AUTHENTICATION (--insecure)")
	if r := stop(); r.code != 0 {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}

	// A password from the environment is enough for a non-loopback address
	// (here over plain HTTP, as behind a TLS proxy).
	t.Setenv(passwordEnv, "from-env")
	out, stop = c.start(t, "hopper dashboard: http://", "dashboard", "--addr", "0.0.0.0:0", "--user", "ops", "--plain-http")
	wantOut(t, out(), "plain HTTP start-up line", "basic auth as ops over plain HTTP (--plain-http)")
	u := dashboardURL(t, out())
	if code, _ := fetch(t, "GET", u, nil, func(r *http.Request) { r.SetBasicAuth("ops", "from-env") }); code != http.StatusOK {
		t.Errorf("GET with the password from the environment: %d", code)
	}
	stop()
}

func TestDashboardCommandTraceURL(t *testing.T) {
	c := clis(t)[0]
	r := c.run(t, "dashboard", "--trace-url", "https://jaeger.example.com/trace/")
	wantBadUsage(t, r, "trace URL without {trace_id}", "hopper dashboard: --trace-url: ")
	wantOut(t, r.stderr, "trace URL without {trace_id}", "{trace_id}")
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "::1": true, "[::1]": true, "localhost": true, "127.1.2.3": true,
		"": false, "0.0.0.0": false, "::": false, "192.168.1.10": false,
	} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// Basic auth beyond loopback needs HTTPS (or the operator's word that a TLS
// proxy protects the connection); with --tls-cert and --tls-key the
// dashboard serves HTTPS.
func TestDashboardCommandTLS(t *testing.T) {
	c := clis(t)[0]
	t.Setenv(passwordEnv, "s3cret")
	r := c.run(t, "dashboard", "--addr", "0.0.0.0:0", "--user", "ops")
	wantBadUsage(t, r, "basic auth over plain HTTP", "hopper dashboard: refusing to take basic auth passwords over plain HTTP")
	wantOut(t, r.stderr, "basic auth over plain HTTP", "--tls-cert", "--plain-http")
	r = c.run(t, "dashboard", "--addr", "0.0.0.0:0", "--user", "ops", "--tls-cert", "cert.pem")
	wantBadUsage(t, r, "certificate without key", "hopper dashboard: --tls-cert and --tls-key go together")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	r = c.run(t, "dashboard", "--addr", "0.0.0.0:0", "--user", "ops", "--tls-cert", cert, "--tls-key", key)
	wantCode(t, r, 1, "missing certificate files")
	wantOut(t, r.stderr, "missing certificate files", "--tls-cert and --tls-key:")

	pool := writeTestCert(t, cert, key)
	out, stop := c.start(t, "hopper dashboard: https://", "dashboard", "--addr", "127.0.0.1:0", "--user", "ops", "--tls-cert", cert, "--tls-key", key)
	defer stop()
	u := regexp.MustCompile(`(https://\S+/)`).FindStringSubmatch(out())
	if u == nil {
		t.Fatalf("no https URL in %q", out())
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", u[1], nil)
	req.SetBasicAuth("ops", "s3cret")
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET over HTTPS: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.TLS == nil {
		t.Errorf("GET over HTTPS: status %d, TLS %v; want 200 over TLS", res.StatusCode, res.TLS != nil)
	}
	plain := "http://" + strings.TrimPrefix(u[1], "https://")
	if res, err := http.Get(plain); err == nil {
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the HTTPS port answered 200")
		}
	}
}

// writeTestCert writes a self-signed certificate for 127.0.0.1 and its key,
// and returns a pool that trusts it.
func writeTestCert(t *testing.T, certFile, keyFile string) *x509.CertPool {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hopper test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return pool
}
