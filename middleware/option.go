package middleware

import "fmt"

// option returns the options a constructor was given: nil for none (the
// defaults), the one given, and a panic naming the constructor for more
// than one, a programming error.
func option[T any](name string, opts []*T) *T {
	switch len(opts) {
	case 0:
		return nil
	case 1:
		return opts[0]
	}
	panic(fmt.Sprintf("hopper/middleware: %s takes at most one options value, got %d", name, len(opts)))
}
