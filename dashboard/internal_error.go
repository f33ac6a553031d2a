package dashboard

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hopperq/hopper"
)

// requestIDHeader carries the ID of a failed request, as the page and the
// log show it.
const requestIDHeader = "X-Request-Id"

// newRequestID returns a random ID that ties what an operator sees of an
// internal error to its record in the log.
func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}

// failedWhat says in words what failed: "Could not finish listing jobs
// (queue sms, retry)." It names the route's queue, state, job and
// workflow, never the store's error text.
func failedWhat(r *http.Request, what string) string {
	var scope []string
	if q := r.PathValue("queue"); q != "" {
		scope = append(scope, "queue "+q)
	}
	if st := r.PathValue("state"); st != "" {
		scope = append(scope, "state "+st)
	}
	if id := r.PathValue("id"); id != "" {
		scope = append(scope, "ID "+id)
	}
	msg := "Could not finish " + what
	if len(scope) > 0 {
		msg += " (" + strings.Join(scope, ", ") + ")"
	}
	return msg + "."
}

// internalError logs err with a new request ID and the request, and
// returns that ID and what the operator is told instead of err: what
// failed, in words, and where to look.
func (d *dash) internalError(r *http.Request, what string, err error) (id, msg string) {
	id = newRequestID()
	d.cfg.Logger.ErrorContext(r.Context(), "dashboard: store call failed", "request_id", id, "what", what,
		"method", r.Method, "path", r.URL.Path, "error", err)
	return id, failedWhat(r, what)
}

// storeError answers a failed store call: 501 with an explanation when the
// store lacks the operator interface, 404 "No such queue" when it refuses
// the queue's name (hopper.ErrInvalidQueue: "mail~1" of a queue that is
// not partitioned), 503 "The store is unavailable" when its error says
// the store could not be reached for now (storeUnreachable), else 500
// with a page that says what failed and a request ID. The store's error text goes to the log only
// (Config.Logger, with the same request_id), never to the page: it may
// name scripts, keys or hosts.
func (d *dash) storeError(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, hopper.ErrNotSupported) {
		d.renderError(w, r, http.StatusNotImplemented, "Not available on this store",
			fmt.Sprintf("%s needs the store's operator interface (store.Admin), which the store %T does not implement. "+
				"Jobs still run; the periodic schedules page works. Counts, job lists, workers and actions need store.Admin (memstore and redisstore have it).",
				what, d.ins.Store()))
		return
	}
	if errors.Is(err, hopper.ErrInvalidQueue) {
		d.renderError(w, r, http.StatusNotFound, "No such queue", err.Error())
		return
	}
	id, msg := d.internalError(r, what, err)
	w.Header().Set(requestIDHeader, id)
	if storeUnreachable(err) {
		// Redis down, restarting, loading or failing over: say so,
		// without the error's text (an outside trial read "The store
		// failed" while Redis restarted, the cause in the log only).
		d.render(w, r, http.StatusServiceUnavailable, "error", errorPage{
			base:    d.base(r, "The store is unavailable", ""),
			Status:  http.StatusServiceUnavailable,
			Heading: "The store is unavailable",
			Message: msg + " The store could not be reached or is not ready " +
				"(on Redis: the server down, restarting, loading its data or failing over). Reload once it is back; " +
				"the dashboard's log has the error under this request ID.",
			RequestID: id,
		})
		return
	}
	advice := " Reloading may help if it was passing."
	if storeFinal(err) {
		advice = " The store says it needs an operator (on Redis: a right the ACL user lacks, which `hopper check` names, or a setting): reloading will not help until then."
	}
	d.render(w, r, http.StatusInternalServerError, "error", errorPage{
		base:      d.base(r, "The store failed", ""),
		Status:    http.StatusInternalServerError,
		Heading:   "The store failed",
		Message:   msg + " The store answered with an error; the dashboard's log has it under this request ID." + advice,
		RequestID: id,
	})
}

// jsonStoreError is storeError for the JSON API: 500 (503 when the store
// could not be reached) with {"error": what failed, "request_id": id}. A queue name the store
// refuses (hopper.ErrInvalidQueue) is the client's mistake, answered as
// the route answers other bad names: 404 for the route's {queue}, 400 for
// a query's.
func (d *dash) jsonStoreError(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, hopper.ErrInvalidQueue) {
		status := http.StatusBadRequest
		if r.PathValue("queue") != "" {
			status = http.StatusNotFound
		}
		writeJSONError(w, status, err.Error())
		return
	}
	id, msg := d.internalError(r, what, err)
	w.Header().Set(requestIDHeader, id)
	status := http.StatusInternalServerError
	if storeUnreachable(err) {
		status = http.StatusServiceUnavailable
		msg += " The store is unavailable for now (it could not be reached)."
	}
	b, _ := json.Marshal(map[string]string{"error": msg + " See the dashboard's log under request_id " + id + ".", "request_id": id})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
