package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/vmihailenco/msgpack/v5"
)

// maxArgsForm bounds the JSON an args edit may send.
const maxArgsForm = 256 << 10

// editableArgs returns the JSON an operator may edit the args b of a job
// of kind in, and whether they may: only args that JSON carries whole
// (numbers, strings, booleans, lists, maps with string keys: they encode
// back to the same value) and that the redaction hook leaves alone, so an
// edit never writes back a "[redacted]" nor loses a type. Args that are
// null or empty are offered as "null", so that a job given none can be
// given some. Args over maxShownValue are not offered.
func (d *dash) editableArgs(kind string, b []byte) (string, bool) {
	if len(b) > maxShownValue {
		return "", false // the page does not show them
	}
	v, err := DecodeArgs(b)
	if err != nil {
		return "", false
	}
	if v == nil {
		return "null", true
	}
	text := jsonText(v, true)
	if jsonText(d.redact(kind, v), true) != text {
		return "", false
	}
	back, err := argsFromJSON(text)
	if err != nil {
		return "", false
	}
	v2, err := DecodeArgs(back)
	if err != nil || jsonText(v2, true) != text {
		return "", false
	}
	return text, true
}

// argsFromJSON encodes JSON text as msgpack args: integers as integers,
// other numbers as floats, map keys sorted.
func argsFromJSON(text string) ([]byte, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(numbers(v)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// numbers turns the json.Numbers in v into int64 or float64: a whole
// number int64 holds is an int64 however it is written (100, 100.0, 1e2),
// since msgpack decodes an integer into a float field but not a float
// into an integer one.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, ok := wholeInt64(x); ok {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}

// maxWholeExp bounds the exponent of a number wholeInt64 reads exactly:
// 10 to a larger power takes milliseconds to compute, and no one writes
// a whole number of int64 so.
const maxWholeExp = 400

// wholeInt64 returns n as an int64 when it is a whole number in int64's
// range, read exactly: 9007199254740993.0 is not rounded to a float64's
// ...992, and 100.0000000000000000001 is not whole.
func wholeInt64(n json.Number) (int64, bool) {
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f > math.MaxInt64 {
		return 0, false
	}
	s := n.String()
	if e := strings.IndexAny(s, "eE"); e >= 0 {
		exp, err := strconv.Atoi(s[e+1:])
		if err != nil || exp < -maxWholeExp || exp > maxWholeExp {
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// postJobArgs replaces a waiting job's args with the form's "args", JSON
// (Inspector.UpdateJob with EncodedArgs): refused for args the page does
// not offer to edit (see editableArgs), and refused when empty or null.
// The dashboard does not know the handler's args type: JSON of another
// shape is stored, and the job fails to decode it when it runs (the
// form's help says so).
func (d *dash) postJobArgs(r *http.Request) (outcome, error) {
	job, err := d.actionJob(r)
	if err != nil {
		return outcome{}, err
	}
	bad := func(msg string) error { return &userError{http.StatusBadRequest, "Cannot change the args", msg} }
	if _, ok := d.editableArgs(job.Kind, job.Args); !ok {
		return outcome{}, bad("These args hold values JSON does not carry whole, or redacted ones: change them from code (Inspector.UpdateJob).")
	}
	badArgs := func(msg string) error { return &formError{"args", "args", msg} }
	text := r.PostFormValue("args")
	if len(text) > maxArgsForm {
		return outcome{}, badArgs(fmt.Sprintf("The args are %d bytes of JSON, at most %d.", len(text), maxArgsForm))
	}
	if t := strings.TrimSpace(text); t == "" || t == "null" {
		return outcome{}, badArgs("The args cannot be empty or null: the job's handler decodes them into its args type, and null leaves it a zero value. Give the args as JSON, such as the object they were.")
	}
	b, err := argsFromJSON(text)
	if err != nil {
		return outcome{}, badArgs("The args are not one JSON value: " + err.Error())
	}
	_, err = d.ins.UpdateJob(r.Context(), job.Queue, job.ID, hopper.JobUpdate{EncodedArgs: b})
	switch {
	case errors.Is(err, hopper.ErrJobNotFound):
		return outcome{}, &userError{http.StatusNotFound, "No such job", "Queue " + job.Queue + " has no job with this ID any more."}
	case errors.Is(err, hopper.ErrInvalidState):
		return outcome{}, &userError{http.StatusConflict, "Cannot change the args", err.Error()}
	case errors.Is(err, hopper.ErrInvalidJob), errors.Is(err, hopper.ErrArgsTooLarge):
		return outcome{}, badArgs(err.Error())
	case err != nil:
		return outcome{}, err
	}
	return outcome{to: d.jobPath(job.Queue, job.ID), flash: "args", n: 1, attrs: []any{"queue", job.Queue, "job", job.ID, "bytes", len(b)}}, nil
}
