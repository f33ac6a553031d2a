package dashboard

import "net/http"

// notFoundWriter turns the mux's plain-text 404 for a path no route
// serves into the dashboard's own page, with a way back; other answers
// (405 for a wrong method) pass through.
type notFoundWriter struct {
	http.ResponseWriter
	d         *dash
	r         *http.Request
	swallowed bool // the mux's 404 body is dropped
}

func (w *notFoundWriter) WriteHeader(code int) {
	if code != http.StatusNotFound {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.swallowed = true
	// The error page links back to the queues itself (templates/error.html).
	w.d.renderError(w.ResponseWriter, w.r, http.StatusNotFound, "Page not found",
		"The dashboard has no page at "+w.r.URL.Path+".")
}

func (w *notFoundWriter) Write(b []byte) (int, error) {
	if w.swallowed {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}
