package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// formError is a value a form of a page cannot take. The action answers
// with that page again (422), the message next to the form, the field at
// fault marked and what was typed still in the fields, instead of an
// error page that loses it.
type formError struct {
	form  string // the form: "reschedule", "priority", "args", "limits", "group" or a schedule's "spec:<queue>/<name>"
	field string // the field at fault; "" for the form as a whole
	msg   string
}

func (e *formError) Error() string { return e.form + ": " + e.msg }

// formState is what a page shows of a formError: the zero value (no error)
// leaves every form as the page builds it. Its methods are for templates.
type formState struct {
	Form, Field, Msg string
	Values           url.Values // the form as it was sent
}

// Err returns the message for form, "" when form has no error.
func (s formState) Err(form string) string {
	if s.Form != form {
		return ""
	}
	return s.Msg
}

// Invalid reports whether field of form is the one at fault.
func (s formState) Invalid(form, field string) bool {
	return s.Form == form && s.Field == field && field != ""
}

// Val returns what was typed in field name of form, or dflt when form was
// not sent.
func (s formState) Val(form, name, dflt string) string {
	if s.Form != form {
		return dflt
	}
	return s.Values.Get(name)
}

// formStateKey is the context key of the formState of a page shown again.
type formStateKey struct{}

// formStateOf returns the form error the page of r shows, zero for none.
func formStateOf(r *http.Request) formState {
	s, _ := r.Context().Value(formStateKey{}).(formState)
	return s
}

// reshow answers a form error with the page the form is on: the job page
// for a job's forms, the periodic jobs' page for a stored schedule's
// spec, the queue's list (the state it came from, ready by default) for
// the queue's, with status 422.
func (d *dash) reshow(w http.ResponseWriter, r *http.Request, fe *formError) {
	st := formState{Form: fe.form, Field: fe.field, Msg: fe.msg, Values: r.PostForm}
	r2 := r.WithContext(context.WithValue(r.Context(), formStateKey{}, st))
	u := *r.URL
	u.RawQuery = ""
	r2.URL = &u
	w = &statusWriter{ResponseWriter: w, status: http.StatusUnprocessableEntity}
	if strings.HasPrefix(fe.form, specFormPrefix) {
		d.serveSchedules(w, r2)
		return
	}
	if r.PathValue("id") != "" {
		d.serveJob(w, r2)
		return
	}
	state := hopper.StateReady
	if s, err := store.ParseState(r.PostFormValue("return")); err == nil {
		state = s
	}
	r2.SetPathValue("state", string(state))
	d.serveJobs(w, r2)
}

// statusWriter answers status where the handler it wraps answers 200.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		code = w.status
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) { return w.ResponseWriter.Write(b) }
