package bff

import (
	"context"
	"net/url"
	"testing"
	"time"
)

// newBareServer is a server without upstream or database, for the money step's machinery.
func newBareServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg.PublicURL = &url.URL{Scheme: "http", Host: "example.test"}
	s, err := New(Deps{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMoneyStepWaitsForTheConfiguredBudget: without a read deadline in its context, a page
// waits for a money step as long as the configured ReadBudget (not the default 1.5 s).
func TestMoneyStepWaitsForTheConfiguredBudget(t *testing.T) {
	s := newBareServer(t, Config{ReadBudget: 100 * time.Millisecond})
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	done, err := s.moneyStep(context.Background(), func(ctx context.Context) error {
		select {
		case <-release:
		case <-time.After(time.Second):
		}
		return nil
	})
	if done || err != nil {
		t.Fatalf("done %v, err %v: the page waited past the configured budget for a 1 s step", done, err)
	}
	if took := time.Since(start); took > 700*time.Millisecond {
		t.Errorf("the page waited %v, want about max(ReadBudget, minMoneyWait) = %v", took, minMoneyWait)
	}
}
