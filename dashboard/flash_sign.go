package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// flashTTL is how long after its action an outcome's link still shows it:
// long enough for the redirect and a slow page load, short enough that a
// copied link shows nothing later.
const flashTTL = 2 * time.Minute

// flashKey signs the outcomes this process puts in its redirects. It is
// random per process: a link made by another process, or forged, shows no
// outcome (the action itself is not affected).
var flashKey = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("dashboard: no randomness for the flash key: " + err.Error())
	}
	return k
}()

// flashSig signs an outcome (what, n) valid until exp (Unix seconds).
func flashSig(what string, n int, exp int64) string {
	m := hmac.New(sha256.New, flashKey)
	m.Write([]byte(what + "\x00" + strconv.Itoa(n) + "\x00" + strconv.FormatInt(exp, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// flashQuery returns the query parameters that carry an action's outcome
// to the page it redirects to: flash, n and fs, the expiry and signature.
func (d *dash) flashQuery(what string, n int) string {
	exp := d.cfg.Now().Add(flashTTL).Unix()
	return "flash=" + what + "&n=" + strconv.Itoa(n) + "&fs=" + strconv.FormatInt(exp, 10) + "." + flashSig(what, n, exp)
}

// flashFrom reads the outcome of an action from the redirect's query: only
// one this process signed (see flashQuery) and not yet expired, so that a
// crafted or old link shows nothing.
func (d *dash) flashFrom(r *http.Request) *flash {
	q := r.URL.Query()
	what := q.Get("flash")
	if what == "" {
		return nil
	}
	n, err := strconv.Atoi(q.Get("n"))
	if err != nil || n < 0 {
		return nil
	}
	expText, sig, ok := strings.Cut(q.Get("fs"), ".")
	if !ok {
		return nil
	}
	exp, err := strconv.ParseInt(expText, 10, 64)
	if err != nil || d.cfg.Now().Unix() > exp {
		return nil
	}
	if !hmac.Equal([]byte(sig), []byte(flashSig(what, n, exp))) {
		return nil
	}
	return flashText(what, n)
}
