// Package sdktest checks hopper's OpenTelemetry middleware against the
// OpenTelemetry SDK: spans recorded end to end, metrics read back with a
// manual reader, the documented middleware order. It is a module of its
// own so that the SDK stays out of hopper's own module graph: a program
// that imports hopper carries the OpenTelemetry API only. It has no code
// of its own; run its tests with go test -C middleware/sdktest ./...
package sdktest
