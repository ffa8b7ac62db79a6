package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"
)

// TestServeWaitsForStepsWithinShutdownTimeout: on shutdown serve waits for the site's
// background money steps after the HTTP server stopped, but no longer than the shutdown
// timeout, and says so when they are still running.
func TestServeWaitsForStepsWithinShutdownTimeout(t *testing.T) {
	cfg := Config{Addr: "127.0.0.1:0", PublicURL: "http://127.0.0.1", ShutdownTimeout: 200 * time.Millisecond}
	ctx, stop := context.WithCancel(context.Background())
	called := make(chan struct{})
	wait := func(ctx context.Context) error { // a step that never ends
		close(called)
		<-ctx.Done()
		return ctx.Err()
	}
	errc := make(chan error, 1)
	go func() {
		errc <- serve(ctx, cfg, http.NotFoundHandler(), nil, wait, slog.New(slog.DiscardHandler), io.Discard)
	}()
	time.Sleep(100 * time.Millisecond) // listening
	stop()
	select {
	case err := <-errc:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("serve = %v, want the shutdown deadline of the steps still running", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return within the shutdown timeout")
	}
	select {
	case <-called:
	default:
		t.Error("serve did not wait for the steps")
	}
}
