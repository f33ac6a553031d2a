package testutil

import (
	"log/slog"
	"os"
)

// Logger returns a logger for the code under test: it drops everything,
// so test output stays readable, unless the environment variable
// HOPPER_TEST_LOG is set, when it writes every record (debug and up) to
// standard error.
func Logger() *slog.Logger {
	if os.Getenv("HOPPER_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}
