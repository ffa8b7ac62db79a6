package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportListsOnlyLongFunctions(t *testing.T) {
	dir := t.TempDir()
	long := "package x\n\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", 10) + "}\n\nfunc short() {}\n"
	for name, src := range map[string]string{"x.go": long, "x_test.go": long, "x_templ.go": long} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	n, err := report(&out, []string{dir}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || !strings.HasPrefix(out.String(), "12 long ") || !strings.Contains(out.String(), "x.go:3") {
		t.Fatalf("report: %d %q; want the one long function of x.go (12 lines)", n, out.String())
	}
}
