package store

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// Progress is what a running attempt reported of itself
// (hopper.Progress and hopper.Log).
type Progress struct {
	// Percent is how far the attempt is, from 0 to 100; negative when the
	// handler reported none.
	Percent float64
	// Data is small structured data the handler reported (msgpack, at
	// most MaxProgressBytes).
	Data []byte
	// Log holds the attempt's latest log lines, oldest first, at most
	// MaxLogLines.
	Log []LogLine
}

// LogLine is one line a handler logged with hopper.Log.
type LogLine struct {
	// At is when the handler logged it, on the worker's clock.
	At time.Time
	// Text is the line, at most MaxLogLineBytes.
	Text string
}

// Limits on progress reports.
const (
	// MaxProgressBytes bounds Progress.Data.
	MaxProgressBytes = 4 << 10
	// MaxLogLines is how many log lines a job keeps; older ones are
	// dropped first.
	MaxLogLines = 100
	// MaxLogLineBytes bounds one log line.
	MaxLogLineBytes = 1 << 10
)

// Validate returns an error wrapping ErrInvalidJob when p breaks a limit:
// Percent above 100 or not a number, Data over MaxProgressBytes, more than
// MaxLogLines lines, or a line over MaxLogLineBytes or not UTF-8.
func (p *Progress) Validate() error {
	switch {
	case math.IsNaN(p.Percent) || p.Percent > 100:
		return fmt.Errorf("%w: progress %v is not a percentage", ErrInvalidJob, p.Percent)
	case len(p.Data) > MaxProgressBytes:
		return fmt.Errorf("%w: progress data of %d bytes is over %d", ErrInvalidJob, len(p.Data), MaxProgressBytes)
	case len(p.Log) > MaxLogLines:
		return fmt.Errorf("%w: %d log lines in one report is over %d", ErrInvalidJob, len(p.Log), MaxLogLines)
	}
	for _, l := range p.Log {
		if len(l.Text) > MaxLogLineBytes || !utf8.ValidString(l.Text) {
			return fmt.Errorf("%w: a log line of %d bytes is over %d or not UTF-8", ErrInvalidJob, len(l.Text), MaxLogLineBytes)
		}
	}
	return nil
}

// AppendLog returns log with lines appended, keeping the last MaxLogLines.
// It may reuse log's array.
func AppendLog(log, lines []LogLine) []LogLine {
	log = append(log, lines...)
	if drop := len(log) - MaxLogLines; drop > 0 {
		log = append(log[:0], log[drop:]...)
	}
	return log
}
