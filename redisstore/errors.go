package redisstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Error classes. Every error a Store returns for a failed Redis call wraps
// at most one of them, next to the go-redis error it came from, so that
// callers can tell what went wrong with errors.Is, and go-redis's own
// checks (redis.IsOOMError, redis.IsPermissionError, errors.As of a
// *net.OpError, ...) keep working on the same error:
//
//	if errors.Is(err, redisstore.ErrOOM) { ... }
//
// An error that is none of these (a context ended, a job not found, an
// invalid argument) wraps none of them. Temporary reports the classes that
// may go away by themselves.
var (
	// ErrUnavailable: Redis could not be reached or the connection broke
	// (refused, reset, closed, timed out, no free connection in the pool);
	// not the client closed by the program (ErrClientClosed).
	// The operation may or may not have been applied when the connection
	// broke after the command was sent: enqueueing again with the same job
	// ID is safe.
	ErrUnavailable = errors.New("redisstore: Redis unavailable")
	// ErrOOM: Redis refused a write because it reached maxmemory (with the
	// noeviction policy hopper needs). Nothing was written.
	ErrOOM = errors.New("redisstore: Redis out of memory (maxmemory reached)")
	// ErrNoPerm: the Redis ACL user may not run a command hopper sends or
	// touch one of its keys (NOPERM). Nothing was written.
	ErrNoPerm = errors.New("redisstore: Redis ACL denied the operation (NOPERM)")
	// ErrAuth: authentication failed (NOAUTH, WRONGPASS), or the TLS
	// handshake refused a certificate (the server rejected the client's, or
	// the client does not trust the server's).
	ErrAuth = errors.New("redisstore: Redis authentication failed")
	// ErrReadOnly: the server is a read-only replica, as an old master is
	// after a failover until clients reconnect to the new one (READONLY).
	ErrReadOnly = errors.New("redisstore: Redis server is a read-only replica")
	// ErrLoading: the server is loading its data set after a restart
	// (LOADING).
	ErrLoading = errors.New("redisstore: Redis is loading its data set")
	// ErrClusterDown: a Redis Cluster cannot serve the slot (CLUSTERDOWN,
	// TRYAGAIN, MASTERDOWN).
	ErrClusterDown = errors.New("redisstore: Redis Cluster cannot serve the slot")
	// ErrNotReplicated: with Config.Replicas, the writes of a call reached
	// fewer replicas than asked within Config.ReplicaTimeout. They are on
	// the master, and a failover now may lose them.
	ErrNotReplicated = errors.New("redisstore: writes not confirmed by enough replicas")
	// ErrUnsupportedServer is wrapped by the error of every call of a
	// Store whose server is older than Redis 7.0 (the scripts need its
	// script flags, LPOP with a count, ZMSCORE and SMISMEMBER).
	// It is final, as ErrLayout is: a hopper.Worker or Scheduler on the
	// Store stops.
	ErrUnsupportedServer error = &finalError{"redisstore: unsupported Redis server (need Redis 7.0 or newer)"}
	// ErrClientClosed: the go-redis client the Store was given has been
	// closed (its Close was called; go-redis says redis.ErrClosed, "redis:
	// client is closed"). It is final: no call of the Store can succeed
	// again, and Temporary reports false. A hopper.Worker or Scheduler on
	// the Store stops at the first and its Run returns the error. The
	// calls they repeat (Claim, WaitReady, Heartbeat, Maintain,
	// WaitSchedule, MaintainWorkflows, SchedulesVersion, ListQueues) and
	// ReadEvents say it once the client itself answers so; the other
	// calls, and an ErrClosed of one node's connection that go-redis
	// retired on a Redis Cluster (after a failover), say ErrUnavailable.
	ErrClientClosed error = &closedError{"redisstore: the Redis client is closed"}
)

// closedError is the type of ErrClientClosed. Its StoreClosed method is
// how package hopper, which does not import this one, tells an error that
// says its store is closed for good (see hopper.Worker.Run).
type closedError struct{ msg string }

func (e *closedError) Error() string { return e.msg }

// StoreClosed reports true: the store cannot serve any call again.
func (e *closedError) StoreClosed() bool { return true }

// finalError is the type of ErrLayout, ErrUnsupportedServer and the
// partitions' conflict: a check that failed for good, which the Store does
// not make again. Its StoreFinal method is how package hopper tells an
// error that no call can pass until an operator acts (see
// hopper.Worker.Run): the worker stops rather than retrying.
type finalError struct{ msg string }

func (e *finalError) Error() string { return e.msg }

// StoreFinal reports true: every call fails the same way until an
// operator acts (the error says how) and the process starts again.
func (e *finalError) StoreFinal() bool { return true }

// Temporary reports whether err is of a class that may clear by itself,
// so that trying again later may succeed: ErrUnavailable, ErrLoading,
// ErrReadOnly, ErrClusterDown, ErrNotReplicated and ErrOOM (once jobs
// finish and free memory). ErrNoPerm and ErrAuth need an operator, and
// ErrClientClosed a new client.
func Temporary(err error) bool {
	if errors.Is(err, ErrClientClosed) {
		return false
	}
	return isAny(err, ErrUnavailable, ErrLoading, ErrReadOnly, ErrClusterDown, ErrOOM, ErrNotReplicated)
}

// isAny reports whether err is of one of classes.
func isAny(err error, classes ...error) bool {
	for _, c := range classes {
		if errors.Is(err, c) {
			return true
		}
	}
	return false
}

// redisError is a failed Redis call: the operation, the class (nil when
// none applies) and the go-redis error. Its message is
// "redisstore: <op>: <go-redis error>", with a hint for some classes.
type redisError struct {
	op    string
	class error
	err   error
}

func (e *redisError) Error() string {
	msg := "redisstore: " + e.op + ": " + e.err.Error()
	switch e.class {
	case ErrNoPerm:
		msg += " (the Redis ACL user lacks a right hopper needs: `hopper check` names each missing one; see the redisstore package documentation, Access control)"
	case ErrOOM:
		msg += " (Redis reached maxmemory: free memory or raise maxmemory; nothing was written)"
	}
	return msg
}

// Unwrap returns the class (when one applies) and the go-redis error.
// StoreTemporary reports Temporary(e): whether the failed call may
// succeed when made again later. It is how package hopper, which does not
// import this one, tells such an error (hopper.Client.WaitJob and
// WaitWorkflow watch again rather than return it).
func (e *redisError) StoreTemporary() bool { return Temporary(e) }

// StoreUnreachable reports whether the call failed because Redis could
// not take it for now: ErrUnavailable, ErrLoading, ErrClusterDown or
// ErrReadOnly (a master being replaced). Not ErrOOM (Redis answered, at
// maxmemory) nor ErrNotReplicated (the write is on the master). The
// dashboard, which does not import this package, answers such an error
// with 503, "The store is unavailable".
func (e *redisError) StoreUnreachable() bool {
	return isAny(e, ErrUnavailable, ErrLoading, ErrClusterDown, ErrReadOnly)
}

func (e *redisError) Unwrap() []error {
	if e.class == nil {
		return []error{e.err}
	}
	return []error{e.class, e.err}
}

// wrap adds the operation and the error's class to a Redis error, keeping
// it in the chain so that errors.Is, errors.As and redis.IsOOMError and
// friends still see it. Errors already wrapped keep their class.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var re *redisError
	class := classify(err)
	if errors.As(err, &re) {
		class = nil // the inner error has it already
	}
	return &redisError{op: op, class: class, err: err}
}

// txErr is the error of a MULTI/EXEC of cmds (TxPipelined's): when Redis
// aborted it (EXECABORT) over a command it refused while queueing it
// (LOADING after a restart, OOM, NOPERM), that command's error, whose
// class says what happened and what to do; else err.
func txErr(cmds []redis.Cmder, err error) error {
	if err == nil || !hasCode(err, "EXECABORT") {
		return err
	}
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) && !hasCode(e, "EXECABORT") {
			return e
		}
	}
	return err
}

// classify returns the class of err, or nil.
func classify(err error) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil
	case errors.Is(err, ErrNotReplicated):
		return ErrNotReplicated
	case redis.IsOOMError(err) || hasCode(err, "OOM"):
		return ErrOOM
	case redis.IsPermissionError(err) || hasCode(err, "NOPERM") ||
		strings.Contains(err.Error(), "can't run this command") || strings.Contains(err.Error(), "No permissions to access") ||
		strings.Contains(err.Error(), "can't publish to the channel") || strings.Contains(err.Error(), "can't access at least one of the keys"):
		return ErrNoPerm
	case redis.IsAuthError(err) || hasCode(err, "WRONGPASS") || hasCode(err, "NOAUTH") || tlsRefused(err):
		return ErrAuth
	case redis.IsReadOnlyError(err) || hasCode(err, "READONLY"):
		return ErrReadOnly
	case redis.IsLoadingError(err) || hasCode(err, "LOADING"):
		return ErrLoading
	case redis.IsClusterDownError(err), redis.IsTryAgainError(err), redis.IsMasterDownError(err),
		hasCode(err, "CLUSTERDOWN"), hasCode(err, "TRYAGAIN"), hasCode(err, "MASTERDOWN"):
		return ErrClusterDown
	case unavailable(err):
		return ErrUnavailable
	}
	return nil
}

// tlsRefused reports whether err is a TLS handshake that failed over a
// certificate: the server's did not verify, or the server sent an alert
// refusing the client's (Go reports those as "remote error: tls: ...").
func tlsRefused(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) ||
		errors.As(err, &invalid) || strings.Contains(err.Error(), "remote error: tls: ")
}

// hasCode reports whether err is a Redis error reply starting with code
// (go-redis keeps the reply's text as the error's).
func hasCode(err error, code string) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	s := re.Error()
	return strings.HasPrefix(s, code+" ") || s == code
}

// unavailable reports whether err is a connection-level failure.
func unavailable(err error) bool {
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, redis.ErrClosed), errors.As(err, &oe), errors.As(err, &ne):
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection pool timeout") || strings.Contains(s, "redis: connection pool") ||
		strings.HasPrefix(s, "ERR max number of clients reached") || hasCode(err, "BUSY") ||
		hasCode(err, "NOREPLICAS") // min-replicas-to-write not met: nothing was written
}

// closedCheck returns err, unless it says redis.ErrClosed and the Store's
// own client says so too, which makes it an error of class
// ErrClientClosed: on a Redis Cluster, go-redis closes the connections of
// a node that left the cluster (a failed-over master), and a call in
// flight there says ErrClosed while the client serves on (ErrUnavailable:
// temporary). The check is one PING, which a closed client answers
// without the network, and is made only on such errors.
//
// It also has a Cluster client reload the cluster's layout after an error
// that says a node is gone (observe), as a script call does: the plain
// reads it follows (the queue registry's SMEMBERS, the workers') failed
// against a dead master's address for up to a minute after its replica
// took over, and the dashboard with them.
func (s *Store) closedCheck(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	s.observe(err)
	if !errors.Is(err, redis.ErrClosed) || errors.Is(err, ErrClientClosed) {
		return err
	}
	if perr := s.rdb.Ping(ctx).Err(); !errors.Is(perr, redis.ErrClosed) {
		return err
	}
	return &clientClosed{err: err}
}

// clientClosed is an error of class ErrClientClosed, with the call's.
type clientClosed struct{ err error }

func (e *clientClosed) Error() string   { return e.err.Error() }
func (e *clientClosed) Unwrap() []error { return []error{ErrClientClosed, e.err} }
