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
