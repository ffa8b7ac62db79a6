package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/names"
)

// TestNamesFileSetting: -names-file / CINEMA_NAMES_FILE is empty by default (the embedded
// sandbox's catalog with the sandbox, none with a real ticketing API), names a JSON catalog,
// and a bad catalog stops the start with the file and the entry named.
func TestNamesFileSetting(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.NamesFile != "" {
		t.Fatalf("default: %q, %v", c.NamesFile, err)
	}
	sandboxCat, err := c.names(true)
	if err != nil {
		t.Fatalf("embedded default: %v", err)
	}
	if got := (names.Namer{Catalog: sandboxCat, Lang: "de"}).Name(names.TicketType, "0001", "0001", "Adult"); got != "Erwachsene" {
		t.Errorf("embedded default names 0001 in German %q", got)
	}
	if real, err := c.names(false); err != nil || real != nil {
		t.Errorf("real upstream without -names-file: %v, %v; want no catalog", real, err)
	}

	dir := t.TempDir()
	good := filepath.Join(dir, "names.json")
	if err := os.WriteFile(good, []byte(`{"ticketTypes": {"0001": {"de": "Vollpreis"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CINEMA_NAMES_FILE": good}
	c, err = parseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || c.NamesFile != good {
		t.Fatalf("environment: %q, %v", c.NamesFile, err)
	}
	cat, err := c.names(true) // the operator's file wins over the sandbox's
	if err != nil {
		t.Fatal(err)
	}
	if got := (names.Namer{Catalog: cat, Lang: "de"}).Name(names.TicketType, "0001", "0001", "Adult"); got != "Vollpreis" {
		t.Errorf("-names-file names 0001 in German %q", got)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"offers": {"UP": {"de": "für {preis}"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, file, want string }{
		{"bad entry", bad, `offers["UP"].de: placeholder {preis}`},
		{"absent file", filepath.Join(dir, "absent.json"), "-names-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseConfig([]string{"-names-file", tt.file}, none, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("-names-file %s: %v, want an error containing %q", tt.file, err, tt.want)
			}
		})
	}
}
