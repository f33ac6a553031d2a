package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// TestRedisTLSFlags: the CLI reaches a Redis that speaks only TLS, with a
// private CA and tls-auth-clients yes, through --redis-tls-ca,
// --redis-tls-cert and --redis-tls-key (or their environment variables).
// A rediss:// URL alone could not: go-redis's URL has no way to name a CA
// or a client certificate ("tls: certificate required", "x509:
// certificate signed by unknown authority"). When the TLS handshake fails
// the one line says which flag would help.
func TestRedisTLSFlags(t *testing.T) {
	srv := redistest.StartTLS(t)
	prefix := redistest.Prefix(t)
	seed(t, redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix}))
	other := redistest.MakeCerts(t) // an authority that signed nothing of srv's
	url := "rediss://" + srv.Addr + "/0"
	c := &cli{open: openRedis, flags: []string{"--redis", url, "--redis-prefix", prefix}}
	ca := []string{"--redis-tls-ca", srv.Certs.CAFile}
	cert := []string{"--redis-tls-cert", srv.Certs.ClientCertFile, "--redis-tls-key", srv.Certs.ClientKeyFile}
	stats := func(flags ...[]string) []string {
		args := []string{"stats"}
		for _, f := range flags {
			args = append(args, f...)
		}
		return args
	}

	for _, args := range [][]string{
		stats(ca, cert),
		stats(ca, cert, []string{"--redis-tls-server-name", "localhost"}),
	} {
		r := c.run(t, args...)
		wantCode(t, r, 0, strings.Join(args, " "))
		wantOut(t, r.stdout, strings.Join(args, " "), "default")
	}

	cannotReach := "hopper stats: cannot reach Redis at " + url + ": "
	for _, tc := range []struct {
		what string
		args []string
		want []string
	}{
		{"no client certificate", stats(ca),
			[]string{cannotReach, "tls: certificate required; the server asks for a client certificate (tls-auth-clients); give it with --redis-tls-cert FILE and --redis-tls-key FILE"}},
		{"a CA that did not sign the server's certificate", stats([]string{"--redis-tls-ca", other.CAFile}, cert),
			[]string{cannotReach, `x509: certificate signed by unknown authority; --redis-tls-ca "` + other.CAFile + `" does not hold the authority that signed the server's certificate`}},
		{"no CA: the system's", stats(cert),
			[]string{cannotReach, "x509: certificate signed by unknown authority; the server's certificate is signed by an authority this system does not trust; give that authority's certificate with --redis-tls-ca FILE"}},
		{"a client certificate the server does not trust", stats(ca, []string{"--redis-tls-cert", other.ClientCertFile, "--redis-tls-key", other.ClientKeyFile}),
			[]string{cannotReach, `; the server refused the client certificate --redis-tls-cert "` + other.ClientCertFile + `"`}},
		{"a server name the certificate does not hold", stats(ca, cert, []string{"--redis-tls-server-name", "wrong.example"}),
			[]string{cannotReach, `not wrong.example; --redis-tls-server-name "wrong.example" is not a name the server's certificate holds`}},
		// The Cluster client takes the flags too: the handshake passes,
		// and the server, not in cluster mode, answers.
		{"--cluster", stats(ca, cert, []string{"--cluster"}),
			[]string{cannotReach, "cluster support disabled"}},
		{"--cluster, no client certificate", stats(ca, []string{"--cluster"}),
			[]string{cannotReach, "tls: certificate required; the server asks for a client certificate"}},
	} {
		r := c.run(t, tc.args...)
		wantCode(t, r, 1, tc.what)
		wantOneLine(t, r, tc.what, tc.want...)
	}

	// The environment variables, as $HOPPER_REDIS_URL for --redis.
	t.Setenv("HOPPER_REDIS_TLS_CA", srv.Certs.CAFile)
	t.Setenv("HOPPER_REDIS_TLS_CERT", srv.Certs.ClientCertFile)
	t.Setenv("HOPPER_REDIS_TLS_KEY", srv.Certs.ClientKeyFile)
	t.Setenv("HOPPER_REDIS_TLS_SERVER_NAME", "localhost")
	r := c.run(t, "stats")
	wantCode(t, r, 0, "stats with $HOPPER_REDIS_TLS_*")
	wantOut(t, r.stdout, "stats with $HOPPER_REDIS_TLS_*", "default")
	// A flag replaces its variable.
	r = c.run(t, "stats", "--redis-tls-ca", other.CAFile)
	wantCode(t, r, 1, "stats --redis-tls-ca over $HOPPER_REDIS_TLS_CA")
	wantOneLine(t, r, "stats --redis-tls-ca over $HOPPER_REDIS_TLS_CA", `--redis-tls-ca "`+other.CAFile+`" does not hold`)
}

// TestRedisTLSFlagsBadUsage: --redis-tls-* flags that cannot work are bad
// usage, one line naming the flag (and the file and why), then the
// usage, exit 2, before anything connects: given with a plain redis://
// URL (they would be ignored, the connection in clear), a certificate
// without its key, a file that cannot be read or holds no certificate or
// a key that is not the certificate's.
func TestRedisTLSFlagsBadUsage(t *testing.T) {
	certs := redistest.MakeCerts(t)
	other := redistest.MakeCerts(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notPEM := write("notpem.txt", "not a certificate\n")
	badCert := write("bad.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	missing := filepath.Join(dir, "missing.crt")
	c := &cli{open: refusingOpener(t)}

	// Every command that takes the store flags.
	plain := `--redis-tls-ca applies to TLS only, and --redis "redis://localhost:6379/0" is plain: write rediss:// for TLS`
	for _, args := range [][]string{
		{"stats"}, {"jobs", "list"}, {"jobs", "show", "x"}, {"events", "--queue", "q"}, {"migrate", "status"},
		{"queues", "pause", "q"}, {"workflows", "list"}, {"schedules", "list"}, {"check"}, {"dashboard", "--addr", "127.0.0.1:0"},
	} {
		r := c.run(t, append(args, "--redis", "redis://localhost:6379/0", "--redis-tls-ca", certs.CAFile)...)
		command := args[0]
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
			command += " " + args[1]
		}
		wantBadUsage(t, r, strings.Join(args, " "), "hopper "+command+": "+plain)
	}

	tlsURL := []string{"--redis", "rediss://127.0.0.1:1/0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--redis", "127.0.0.1:1", "--redis-tls-cert", certs.ClientCertFile, "--redis-tls-key", certs.ClientKeyFile},
			`--redis-tls-cert and --redis-tls-key apply to TLS only, and --redis "redis://127.0.0.1:1" is plain`},
		{[]string{"--redis", "redis://u:S3CRETPW@127.0.0.1:1/0", "--redis-tls-server-name", "localhost"},
			`--redis-tls-server-name applies to TLS only, and --redis "redis://u:xxxxx@127.0.0.1:1/0" is plain`},
		{[]string{"--cluster", "--redis", "redis://127.0.0.1:1", "--redis-tls-ca", certs.CAFile},
			`--redis-tls-ca applies to TLS only, and --redis "redis://127.0.0.1:1" is plain`},
		{append([]string{"--redis-tls-cert", certs.ClientCertFile}, tlsURL...),
			"--redis-tls-cert needs --redis-tls-key: the client certificate and its key go together"},
		{append([]string{"--redis-tls-key", certs.ClientKeyFile}, tlsURL...),
			"--redis-tls-key needs --redis-tls-cert: the client certificate and its key go together"},
		{append([]string{"--redis-tls-ca", missing}, tlsURL...),
			`--redis-tls-ca "` + missing + `": cannot read it: no such file or directory`},
		{append([]string{"--redis-tls-ca", dir}, tlsURL...),
			`--redis-tls-ca "` + dir + `": cannot read it: is a directory`},
		{append([]string{"--redis-tls-ca", notPEM}, tlsURL...),
			`--redis-tls-ca "` + notPEM + `": no PEM certificate in it (-----BEGIN CERTIFICATE-----)`},
		{append([]string{"--redis-tls-ca", certs.ClientKeyFile}, tlsURL...),
			`--redis-tls-ca "` + certs.ClientKeyFile + `": no PEM certificate in it`},
		{append([]string{"--redis-tls-ca", badCert}, tlsURL...),
			`--redis-tls-ca "` + badCert + `": certificate 1 does not parse: x509: `},
		{append([]string{"--redis-tls-cert", missing, "--redis-tls-key", certs.ClientKeyFile}, tlsURL...),
			`--redis-tls-cert "` + missing + `": cannot read it: no such file or directory`},
		{append([]string{"--redis-tls-cert", certs.ClientCertFile, "--redis-tls-key", missing}, tlsURL...),
			`--redis-tls-key "` + missing + `": cannot read it: no such file or directory`},
		{append([]string{"--redis-tls-cert", notPEM, "--redis-tls-key", certs.ClientKeyFile}, tlsURL...),
			`--redis-tls-cert "` + notPEM + `": failed to find any PEM data in certificate input`},
		{append([]string{"--redis-tls-cert", certs.ClientCertFile, "--redis-tls-key", other.ClientKeyFile}, tlsURL...),
			`--redis-tls-key "` + other.ClientKeyFile + `" with --redis-tls-cert "` + certs.ClientCertFile + `": private key does not match public key`},
	} {
		args := append([]string{"stats"}, tc.args...)
		r := c.run(t, args...)
		wantBadUsage(t, r, strings.Join(args, " "), "hopper stats: "+tc.want)
		if strings.Contains(r.stderr, "S3CRETPW") {
			t.Errorf("%v shows the password: %s", args, r.stderr)
		}
	}

	// A value from the environment is named as such: the variable may be
	// set for another Redis than the one --redis names.
	t.Setenv("HOPPER_REDIS_TLS_CA", certs.CAFile)
	r := c.run(t, "stats", "--redis", "localhost:6379")
	wantBadUsage(t, r, "stats with $HOPPER_REDIS_TLS_CA", `hopper stats: --redis-tls-ca (from $HOPPER_REDIS_TLS_CA) applies to TLS only, and --redis "redis://localhost:6379" is plain`)
	t.Setenv("HOPPER_REDIS_TLS_KEY", missing)
	r = c.run(t, "stats", "--redis", "rediss://127.0.0.1:1/0", "--redis-tls-cert", certs.ClientCertFile)
	wantBadUsage(t, r, "stats with $HOPPER_REDIS_TLS_KEY", `hopper stats: --redis-tls-key "`+missing+`" (from $HOPPER_REDIS_TLS_KEY): cannot read it`)
	// An empty flag clears its variable: the flags pass, and the store is
	// opened.
	t.Setenv("HOPPER_REDIS_TLS_KEY", "")
	opened := &cli{open: func(context.Context, *storeFlags) (hopper.Store, func(), error) {
		return nil, nil, errors.New("opened")
	}}
	r = opened.run(t, "stats", "--redis", "localhost:6379", "--redis-tls-ca", "")
	wantCode(t, r, 1, `stats --redis-tls-ca ""`)
	wantOneLine(t, r, `stats --redis-tls-ca ""`, "hopper stats: opened")
}

// TestRedisTLSFlagsHelp: every command that takes --redis lists the TLS
// flags, with their variables, and the default a variable gives.
func TestRedisTLSFlagsHelp(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	r := c.run(t, "stats", "-h")
	wantCode(t, r, 0, "stats -h")
	wantOut(t, r.stderr, "stats -h",
		"-redis-tls-ca string", "trusted instead of the system's; rediss:// only ($HOPPER_REDIS_TLS_CA, when set, is the default)",
		"-redis-tls-cert string", "for mutual TLS; needs --redis-tls-key; rediss:// only ($HOPPER_REDIS_TLS_CERT, when set, is the default)",
		"-redis-tls-key string", "($HOPPER_REDIS_TLS_KEY, when set, is the default)",
		"-redis-tls-server-name string", "($HOPPER_REDIS_TLS_SERVER_NAME, when set, is the default)")
	t.Setenv("HOPPER_REDIS_TLS_CA", "/etc/hopper/redis-ca.pem")
	r = c.run(t, "dashboard", "-h")
	wantCode(t, r, 0, "dashboard -h")
	wantOut(t, r.stderr, "dashboard -h", `(default "/etc/hopper/redis-ca.pem" from $HOPPER_REDIS_TLS_CA)`, "-redis-tls-cert string")
	if strings.Count(r.stderr, "redis-ca.pem") != 1 {
		t.Errorf("dashboard -h gives the default of --redis-tls-ca more than once:\n%s", r.stderr)
	}
}
