// Package childproc holds what hopper's test harnesses that start
// processes share (internal/proctest's children, internal/redistest's
// servers): a child that dies with the test binary, and its output
// collected while it runs.
package childproc
