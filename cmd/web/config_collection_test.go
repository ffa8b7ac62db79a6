package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestCollectionPathSetting: -collection-path / CINEMA_COLLECTION_PATH is empty by default (the
// upstream hears of no collection), takes "METHOD path", and refuses anything else.
func TestCollectionPathSetting(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.CollectionPath != "" || c.marksCollectedUpstream() {
		t.Fatalf("default: %q, marks %v, %v", c.CollectionPath, c.marksCollectedUpstream(), err)
	}
	env := map[string]string{"CINEMA_COLLECTION_PATH": "POST RESTBooking.svc/booking/collected"}
	c, err = parseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || c.CollectionPath != env["CINEMA_COLLECTION_PATH"] || !c.marksCollectedUpstream() {
		t.Fatalf("environment: %q, marks %v, %v", c.CollectionPath, c.marksCollectedUpstream(), err)
	}
	for _, bad := range []string{"RESTBooking.svc/booking/collected", "PUT tickets/printed", "POST "} {
		if _, err := parseConfig([]string{"-collection-path", bad}, none, io.Discard); err == nil || !strings.Contains(err.Error(), "collection-path") {
			t.Errorf("-collection-path %q: %v", bad, err)
		}
	}
	// A MarkBookingCollected row in -upstream-paths configures the route too.
	file := filepath.Join(t.TempDir(), "paths.json")
	if err := os.WriteFile(file, []byte(`{"MarkBookingCollected":"POST tickets/printed"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err = parseConfig([]string{"-upstream-paths", file}, none, io.Discard); err != nil || !c.marksCollectedUpstream() {
		t.Errorf("paths file with the row: marks %v, %v", c.marksCollectedUpstream(), err)
	}
	if err := os.WriteFile(file, []byte(`{"RemoveTickets":"POST order/remove"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err = parseConfig([]string{"-upstream-paths", file}, none, io.Discard); err != nil || c.marksCollectedUpstream() {
		t.Errorf("paths file without the row: marks %v, %v", c.marksCollectedUpstream(), err)
	}
}

// TestCollectionPathRoutesTheClient: the ticketing client sends MarkBookingCollected to the
// configured route.
func TestCollectionPathRoutesTheClient(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ResultCode":0,"AlreadyCollected":false,"CollectedUtc":"2026-11-23T09:14:00Z"}`)
	}))
	t.Cleanup(srv.Close)
	cfg, err := parseConfig([]string{"-upstream-url", srv.URL, "-collection-path", "POST Custom.svc/tickets/printed"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newTicketingClient(cfg, slog.New(slog.DiscardHandler), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.MarkBookingCollected(context.Background(), "0001", 100002); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, "|") != "POST /Custom.svc/tickets/printed" {
		t.Errorf("requests %v, want one to the configured route", seen)
	}
}
