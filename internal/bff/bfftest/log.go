package bfftest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// Log is a server log a test reads while the server writes it from many requests at once:
// pass Logger() as HarnessOpts.Logger.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Logger writes text records of every level to l.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Count is how many times s occurs in the log.
func (l *Log) Count(s string) int { return strings.Count(l.String(), s) }

// Lines are the records that contain s.
func (l *Log) Lines(s string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}
