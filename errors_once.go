package hopper

import (
	"errors"
	"fmt"
	"strings"
)

// prefix is what every hopper error's text starts with, once.
const prefix = "hopper: "

// errorf is fmt.Errorf for an error that says "hopper:" once: an error
// operand that comes after the prefix (the format starts with it, or an
// operand before said it) is written without its own leading "hopper: ".
// So a sentinel under another reads "hopper: invalid config: Queues:
// invalid queue name: ...", where fmt.Errorf wrote "hopper:" twice. The
// error wraps the %w operands as fmt.Errorf's does: errors.Is and As see
// each of them.
func errorf(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	said := strings.HasPrefix(format, prefix)
	var texts []any
	for i, v := range a {
		e, ok := v.(error)
		if !ok || e == nil {
			continue
		}
		s := e.Error()
		if said {
			if t, ok := strings.CutPrefix(s, prefix); ok {
				if texts == nil {
					texts = append([]any(nil), a...)
				}
				texts[i] = t
			}
		}
		said = said || strings.HasPrefix(s, prefix)
	}
	if texts == nil {
		return err
	}
	for i, v := range texts {
		if e, ok := v.(error); ok && e != nil {
			texts[i] = e.Error()
		}
	}
	return &onceError{msg: fmt.Sprintf(strings.ReplaceAll(format, "%w", "%v"), texts...), err: err}
}

// onceError is an error of errorf that left a "hopper: " out: its text,
// and fmt.Errorf's error for what it wraps.
type onceError struct {
	msg string
	err error
}

func (e *onceError) Error() string { return e.msg }

// Unwrap returns the %w operands.
func (e *onceError) Unwrap() []error {
	switch u := e.err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	}
	return nil
}

// wordedError returns an error whose text is msg, which words errs itself
// ("hopper:" once), and which wraps each of errs for errors.Is and As.
func wordedError(msg string, errs ...error) error {
	return &onceError{msg: msg, err: errors.Join(errs...)}
}

// errorAt returns err, an error about the item where names (`task "a"`,
// "job 1"), saying where after what kind of error it is, as hopper's own
// errors do: "hopper: invalid job: job 1: ...", not "job 1: hopper:
// invalid job: ...". An err that is not hopper's is said after where. It
// wraps err.
func errorAt(where string, err error) error {
	msg := err.Error()
	at := -1
	if strings.HasPrefix(msg, prefix) {
		at = strings.Index(msg[len(prefix):], ": ")
	}
	if at < 0 {
		return wordedError(fmt.Sprintf("%s: %s", where, msg), err)
	}
	at += len(prefix)
	return wordedError(fmt.Sprintf("%s: %s: %s", msg[:at], where, msg[at+2:]), err)
}
