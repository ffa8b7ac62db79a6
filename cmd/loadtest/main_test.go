package main

import (
	"io"
	"strings"
	"testing"
)

// An unknown page is refused with the flags, before anything is built.
func TestParseFlagsChecksPageNames(t *testing.T) {
	if _, err := parseFlags([]string{"-pages", "booking,nope"}, io.Discard); err == nil || !strings.Contains(err.Error(), `unknown page "nope"`) {
		t.Fatalf("want unknown page \"nope\", got %v", err)
	}
	cfg, err := parseFlags([]string{"-pages", "booking,return-poll"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Pages, ",") != "booking,return-poll" {
		t.Fatalf("pages %q", cfg.Pages)
	}
}

// -target measures a running site; -sandbox-url and -metrics-token only go with it, and -slow
// needs the sandbox's URL.
func TestParseFlagsTarget(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-target", "http://127.0.0.1:8080/", "-pages", "whats-on,film"}, ""},
		{[]string{"-target", "http://lb", "-sandbox-url", "http://sb/"}, ""},
		{[]string{"-sandbox-url", "http://sb"}, "-sandbox-url goes with -target"},
		{[]string{"-target", "http://lb", "-slow", "10s"}, "-slow needs the sandbox"},
		{[]string{"-target", "http://replica1", "-sandbox-url", "http://sb", "-metrics-token", "t0k"}, ""},
		{[]string{"-metrics-token", "t0k"}, "-metrics-token goes with -target"},
	}
	for _, tt := range tests {
		cfg, err := parseFlags(tt.args, io.Discard)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || strings.HasSuffix(cfg.Target, "/") || strings.HasSuffix(cfg.SandboxURL, "/") {
			t.Errorf("%q: %+v, %v", tt.args, cfg, err)
		}
	}
}
