package middleware_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/hopperq/hopper/middleware"
)

// Options are optional, as in middleware.Tracing(); nil means defaults too;
// two options are a programming error that names the constructor.
func TestOptionsAreOptional(t *testing.T) {
	for name, build := range map[string]func(){
		"Tracing":        func() { middleware.Tracing() },
		"TracingNil":     func() { middleware.Tracing(nil) },
		"TracingEnqueue": func() { middleware.TracingEnqueue() },
		"Metrics":        func() { middleware.Metrics() },
		"Logging":        func() { middleware.Logging(slog.Default()) },
		"Recover":        func() { middleware.Recover() },
	} {
		t.Run(name, func(t *testing.T) { build() })
	}
	defer func() {
		v := recover()
		if s, _ := v.(string); !strings.Contains(s, "Tracing takes at most one") {
			t.Errorf("two options: recovered %v, want a panic naming Tracing", v)
		}
	}()
	middleware.Tracing(&middleware.TracingOptions{}, &middleware.TracingOptions{})
}
