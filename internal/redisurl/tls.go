package redisurl

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The TLS flags: what a rediss:// URL cannot say. Each takes its default
// from an environment variable, as --redis does from $HOPPER_REDIS_URL.
const (
	FlagCA         = "redis-tls-ca"
	FlagCert       = "redis-tls-cert"
	FlagKey        = "redis-tls-key"
	FlagServerName = "redis-tls-server-name"
)

// tlsFlagDefs are the TLS flags in the order of the help, with their
// environment variable and help text.
var tlsFlagDefs = []struct{ name, env, help string }{
	{FlagCA, "HOPPER_REDIS_TLS_CA", "PEM file of the CA certificates that may sign the Redis server's certificate, trusted instead of the system's; rediss:// only"},
	{FlagCert, "HOPPER_REDIS_TLS_CERT", "client certificate (PEM, the chain after the leaf) to present to Redis, for mutual TLS; needs --" + FlagKey + "; rediss:// only"},
	{FlagKey, "HOPPER_REDIS_TLS_KEY", "the private key (PEM) of --" + FlagCert},
	{FlagServerName, "HOPPER_REDIS_TLS_SERVER_NAME", "the name the Redis server's certificate must hold, when not the URL's host; rediss:// only"},
}

// TLSFlags are the --redis-tls-* flags of a command: a CA, a client
// certificate and its key, a server name, applied to a rediss:// URL
// (Parse). The zero value, or nil, sets nothing.
type TLSFlags struct {
	CA, Cert, Key, ServerName string

	fs *flag.FlagSet // to tell a flag given from its environment variable
}

// AddTLSFlags registers the --redis-tls-* flags on fs, each with its
// default from its environment variable ($HOPPER_REDIS_TLS_CA,
// $HOPPER_REDIS_TLS_CERT, $HOPPER_REDIS_TLS_KEY,
// $HOPPER_REDIS_TLS_SERVER_NAME).
func AddTLSFlags(fs *flag.FlagSet) *TLSFlags {
	f := &TLSFlags{fs: fs}
	for _, d := range tlsFlagDefs {
		def := os.Getenv(d.env)
		from := fmt.Sprintf(" ($%s, when set, is the default)", d.env)
		if def != "" {
			from = fmt.Sprintf(" (default %q from $%s)", def, d.env)
		}
		// The help gives the default once: the flag's DefValue, which the
		// flag package would print after the text, is left empty.
		fs.StringVar(f.field(d.name), d.name, def, d.help+from)
		fs.Lookup(d.name).DefValue = ""
	}
	return f
}

// field returns the field that holds the flag name.
func (f *TLSFlags) field(name string) *string {
	switch name {
	case FlagCA:
		return &f.CA
	case FlagCert:
		return &f.Cert
	case FlagKey:
		return &f.Key
	default:
		return &f.ServerName
	}
}

// set returns the names of the flags that have a value, in the order of
// the help.
func (f *TLSFlags) set() []string {
	if f == nil {
		return nil
	}
	var names []string
	for _, d := range tlsFlagDefs {
		if *f.field(d.name) != "" {
			names = append(names, d.name)
		}
	}
	return names
}

// name returns how a message names the flag: --name, and where its value
// came from when that was its environment variable.
func (f *TLSFlags) name(flagName string) string {
	if f.fs != nil {
		given := false
		f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == flagName })
		if !given {
			for _, d := range tlsFlagDefs {
				if d.name == flagName {
					return fmt.Sprintf("--%s (from $%s)", flagName, d.env)
				}
			}
		}
	}
	return "--" + flagName
}

// quoted returns the flag's name and value for a message: --name "value".
func (f *TLSFlags) quoted(flagName string) string {
	n := f.name(flagName)
	v := fmt.Sprintf("%q", *f.field(flagName))
	if before, after, ok := strings.Cut(n, " "); ok {
		return before + " " + v + " " + after // --flag "value" (from $ENV)
	}
	return n + " " + v
}

// FlagError is a TLS flag that cannot work, worded for a user: it names
// the flag (Error returns it as it is).
type FlagError struct{ msg string }

func (e *FlagError) Error() string { return e.msg }

func flagErr(format string, args ...any) error {
	return &FlagError{msg: fmt.Sprintf(format, args...)}
}

// config returns base, the TLS configuration go-redis made of the URL (nil
// for redis://), with the flags applied, or base itself when f sets
// nothing. shownURL is the URL for a message, its password hidden. The
// CA replaces the system's pool: only the authorities in its file are
// trusted.
func (f *TLSFlags) config(base *tls.Config, shownURL string) (*tls.Config, error) {
	names := f.set()
	if len(names) == 0 {
		return base, nil
	}
	if (f.Cert == "") != (f.Key == "") {
		have, miss := FlagCert, FlagKey
		if f.Cert == "" {
			have, miss = FlagKey, FlagCert
		}
		return nil, flagErr("%s needs --%s: the client certificate and its key go together", f.name(have), miss)
	}
	if base == nil {
		for i, n := range names {
			names[i] = f.name(n)
		}
		verb := "applies"
		if len(names) > 1 {
			verb = "apply"
		}
		return nil, flagErr("%s %s to TLS only, and --redis %q is plain: write rediss:// for TLS", joinAnd(names), verb, shownURL)
	}
	c := base.Clone()
	if c.MinVersion == 0 {
		c.MinVersion = tls.VersionTLS12
	}
	if f.CA != "" {
		pool, err := f.loadCA()
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	if f.Cert != "" {
		cert, err := f.loadCert()
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{cert}
	}
	if f.ServerName != "" {
		c.ServerName = f.ServerName
	}
	return c, nil
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// readFile reads the file of a flag; the error names the flag, the file
// and why.
func (f *TLSFlags) readFile(flagName string) ([]byte, error) {
	b, err := os.ReadFile(*f.field(flagName))
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			err = perr.Err // its text quotes the path again
		}
		return nil, flagErr("%s: cannot read it: %v", f.quoted(flagName), err)
	}
	return b, nil
}

// loadCA returns the pool of the certificates in the --redis-tls-ca file:
// every PEM block of type CERTIFICATE, and at least one.
func (f *TLSFlags) loadCA() (*x509.CertPool, error) {
	rest, err := f.readFile(FlagCA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	n := 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		n++
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, flagErr("%s: certificate %d does not parse: %v", f.quoted(FlagCA), n, err)
		}
		pool.AddCert(cert)
	}
	if n == 0 {
		return nil, flagErr("%s: no PEM certificate in it (-----BEGIN CERTIFICATE-----)", f.quoted(FlagCA))
	}
	return pool, nil
}

// loadCert returns the client certificate of --redis-tls-cert and
// --redis-tls-key.
func (f *TLSFlags) loadCert() (tls.Certificate, error) {
	certPEM, err := f.readFile(FlagCert)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := f.readFile(FlagKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "tls: ")
		switch {
		case strings.Contains(msg, "certificate input"):
			return tls.Certificate{}, flagErr("%s: %s", f.quoted(FlagCert), msg)
		case strings.Contains(msg, "key input") || strings.Contains(msg, "private key"):
			return tls.Certificate{}, flagErr("%s with %s: %s", f.quoted(FlagKey), f.quoted(FlagCert), msg)
		}
		return tls.Certificate{}, flagErr("%s and %s: %s", f.quoted(FlagCert), f.quoted(FlagKey), msg)
	}
	return cert, nil
}

// Hint returns what to add to err, the error of a first command to a
// Redis over TLS, to say which flag would help: "" when none would. The
// TLS errors of Go say what failed, not what to do ("x509: certificate
// signed by unknown authority", "remote error: tls: certificate
// required").
func (f *TLSFlags) Hint(err error) string {
	if err == nil {
		return ""
	}
	if f == nil {
		f = &TLSFlags{}
	}
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	text := err.Error()
	switch {
	case errors.As(err, &unknown) && f.CA == "":
		return fmt.Sprintf("; the server's certificate is signed by an authority this system does not trust; give that authority's certificate with --%s FILE", FlagCA)
	case errors.As(err, &unknown):
		return fmt.Sprintf("; %s does not hold the authority that signed the server's certificate", f.quoted(FlagCA))
	case errors.As(err, &host) && f.ServerName != "":
		return fmt.Sprintf("; %s is not a name the server's certificate holds", f.quoted(FlagServerName))
	case errors.As(err, &host):
		return fmt.Sprintf("; give a name the server's certificate holds with --%s NAME", FlagServerName)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "; the server's certificate has expired or is not valid yet (check this machine's clock too)"
	case strings.Contains(text, "tls: certificate required") && f.Cert == "":
		return fmt.Sprintf("; the server asks for a client certificate (tls-auth-clients); give it with --%s FILE and --%s FILE", FlagCert, FlagKey)
	case (strings.Contains(text, "tls: unknown certificate authority") || strings.Contains(text, "tls: bad certificate") ||
		strings.Contains(text, "tls: certificate required")) && f.Cert != "":
		return fmt.Sprintf("; the server refused the client certificate %s: is it signed by an authority of the server's tls-ca-cert-file?", f.quoted(FlagCert))
	}
	return ""
}
