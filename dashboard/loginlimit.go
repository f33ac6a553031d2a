package dashboard

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Failed logins: each client address (the request's RemoteAddr; behind a
// proxy, the proxy's) may fail loginBurst times in a row, then one more
// time per loginRefill. An address over its allowance gets 429 with
// Retry-After, without its credentials being looked at, so guessing a
// password runs at 10 tries a minute at most. A request without
// credentials (a browser's first visit, before it asks) costs nothing.
const (
	loginBurst    = 10
	loginRefill   = 6 * time.Second
	loginMaxAddrs = 10000 // addresses tracked; the table starts over when full
)

// loginLimiter counts failed logins per client address. Safe for
// concurrent use.
type loginLimiter struct {
	now  func() time.Time
	mu   sync.Mutex
	addr map[string]*loginBucket
}

// loginBucket is one address's allowance: tokens left at time at.
type loginBucket struct {
	tokens float64
	at     time.Time
}

func newLoginLimiter(now func() time.Time) *loginLimiter {
	return &loginLimiter{now: now, addr: map[string]*loginBucket{}}
}

// clientAddr is the host part of r.RemoteAddr.
func clientAddr(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// refill returns addr's bucket brought up to now (nil when addr has a full
// allowance); the caller holds mu.
func (l *loginLimiter) refill(addr string, now time.Time) *loginBucket {
	b := l.addr[addr]
	if b == nil {
		return nil
	}
	b.tokens += float64(now.Sub(b.at)) / float64(loginRefill)
	b.at = now
	if b.tokens >= loginBurst {
		delete(l.addr, addr)
		return nil
	}
	return b
}

// wait returns how long addr must wait before it may try again (0: it may
// now).
func (l *loginLimiter) wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refill(addr, l.now())
	if b == nil || b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(loginRefill))
}

// fail spends one try of addr's allowance.
func (l *loginLimiter) fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.refill(addr, now)
	if b == nil {
		if len(l.addr) >= loginMaxAddrs {
			l.addr = map[string]*loginBucket{}
		}
		b = &loginBucket{tokens: loginBurst, at: now}
		l.addr[addr] = b
	}
	b.tokens--
}

// refuse answers 429 for an address that must wait d.
func refuseLogin(w http.ResponseWriter, d time.Duration) {
	secs := int((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	http.Error(w, "429 too many failed logins from this address: try again in "+strconv.Itoa(secs)+" s", http.StatusTooManyRequests)
}
