package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSmokeRun runs the tool as CI's smoke run does (-smoke: 2 s at 10 views/s per page against
// the service it builds, on the embedded sandbox): every page answers without an error, and
// the report names each page with its figures, also against the upstream as the service
// timed it.
func TestSmokeRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out strings.Builder
	if err := run(ctx, []string{"-smoke", "-pkg", "../web"}, &out); err != nil {
		t.Fatalf("smoke run: %v\n%s", err, out.String())
	}
	report := out.String()
	for _, page := range pageNames {
		if !strings.Contains(report, page) {
			t.Errorf("the report does not name page %q:\n%s", page, report)
		}
	}
	// The service it started opened its metrics to the tool: the pages are also measured
	// against the upstream calls as the service timed them.
	if !strings.Contains(report, "as the service timed it") {
		t.Errorf("the report has no figures against the upstream as the service timed it:\n%s", report)
	}
}
