package redisstore

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// pongWait is how long a pinged subscription may stay silent before it is
// taken for dead: a PING is only written, which succeeds against a
// server that froze (a stopped process, a partition without a reset), so
// its reply is what shows the server is there. A master frozen while its
// replica took over kept the subscription, and its queues' wake-ups,
// until it came back.
const pongWait = 2 * time.Second

// errNoPong is a subscription's loss when its server left a PING
// unanswered for pongWait.
var errNoPong = errors.New("redisstore: the subscription's server did not answer a PING")

// pinger receives a cluster subscription's messages and watches its
// server: a subscription silent for notifyHealthCheck is pinged, and one
// that leaves the PING unanswered for pongWait is lost (errNoPong). The
// zero value is ready; a pinger serves one subscription's reading
// goroutine.
type pinger struct {
	pinged bool // a PING is out: the server must answer within pongWait
}

// receive returns the next message of ps, or the error that ends it:
// ctx's, errNoPong, a failed PING's or the connection's.
func (p *pinger) receive(ctx context.Context, ps *redis.PubSub) (any, error) {
	for {
		wait := notifyHealthCheck
		if p.pinged {
			wait = pongWait
		}
		m, err := ps.ReceiveTimeout(ctx, wait)
		if err == nil {
			p.pinged = false
			return m, nil
		}
		var ne net.Error
		if ctx.Err() != nil || !errors.As(err, &ne) || !ne.Timeout() {
			p.pinged = false // go-redis dials again on the next receive
			return nil, err
		}
		if p.pinged {
			return nil, errNoPong
		}
		if err := ps.Ping(ctx); err != nil {
			return nil, err
		}
		p.pinged = true // silent: is the server still there?
	}
}
