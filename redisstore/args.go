package redisstore

import "unsafe"

// A string or []byte goes into an interface (a script call's arguments
// are []any) with an allocation of its header; a pointer goes in without
// one. The arguments sent a job at a time (an enqueue's IDs, values and
// due times; a finish's IDs, members and kinds) go as pointers to the
// strings and jobs that hold them, which must not change until the call
// returned. BenchmarkEnqueue and BenchmarkClaimFinish count the
// allocations.

// strArg is a string given to go-redis by its address. go-redis writes
// the bytes an encoding.BinaryMarshaler returns, and prints (Cmd.String,
// the statements of tracing hooks) what a fmt.Stringer returns: both are
// the string, as for a string argument.
type strArg string

// MarshalBinary returns the string's bytes, which go-redis only copies
// into its buffer: the string's own memory, read, never written.
func (s *strArg) MarshalBinary() ([]byte, error) {
	return unsafe.Slice(unsafe.StringData(string(*s)), len(*s)), nil
}

// String returns the string.
func (s *strArg) String() string { return string(*s) }
