package hopper_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestNilInspector: every method of a nil *Inspector, or of a zero
// Inspector (not made by NewInspector), that returns an error returns one
// wrapping ErrInvalidConfig that says to make one with NewInspector; Store
// returns nil, Supported and WorkflowsSupported false. They panicked with
// a nil dereference (ListQueues), or said the store <nil> supported
// nothing.
func TestNilInspector(t *testing.T) {
	var zero hopper.Inspector
	errType := reflect.TypeFor[error]()
	ctxType := reflect.TypeFor[context.Context]()
	for _, tc := range []struct {
		name string
		ins  *hopper.Inspector
	}{{"nil", nil}, {"zero", &zero}} {
		t.Run(tc.name, func(t *testing.T) {
			v := reflect.ValueOf(tc.ins)
			checked := 0
			for m := range v.Type().Methods() {
				ft := m.Type
				if ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != errType {
					continue
				}
				// The receiver is argument 0; the context, when taken, is
				// a live one, the rest zero values.
				args := []reflect.Value{v}
				for k := 1; k < ft.NumIn(); k++ {
					if ft.In(k) == ctxType {
						args = append(args, reflect.ValueOf(t.Context()))
					} else {
						args = append(args, reflect.Zero(ft.In(k)))
					}
				}
				var out []reflect.Value
				if p := panicText(func() { out = m.Func.Call(args) }); p != "" {
					t.Errorf("%s panicked: %s", m.Name, p)
					continue
				}
				err, _ := out[len(out)-1].Interface().(error)
				if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "make one with NewInspector") {
					t.Errorf("%s: %v, want ErrInvalidConfig saying to make one with NewInspector", m.Name, err)
				}
				checked++
			}
			if checked < 30 {
				t.Fatalf("checked %d methods that return an error, want every one (30 or more)", checked)
			}
			if tc.ins.Store() != nil || tc.ins.Supported() || tc.ins.WorkflowsSupported() {
				t.Fatalf("Store %v, Supported %v, WorkflowsSupported %v; want nil, false, false", tc.ins.Store(), tc.ins.Supported(), tc.ins.WorkflowsSupported())
			}
		})
	}
}
