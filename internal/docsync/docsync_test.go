package docsync

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository, two folders up.
const root = "../.."

// packageDirs are the folders under internal/ and cmd/ that hold Go files.
func packageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err == nil && !slices.Contains(dirs, rel) {
				dirs = append(dirs, filepath.ToSlash(rel))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(dirs) < 50 {
		t.Fatalf("found %d packages: is the root right?", len(dirs))
	}
	return dirs
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codePath is a path of the repository written in backquotes.
var codePath = regexp.MustCompile("`((?:internal|cmd|views|migrations)/[A-Za-z0-9_./-]*)`")

// TestArchitectureNamesEveryPackage: docs/architecture.md names every package under internal/
// and cmd/, and every path it names exists.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc := read(t, "docs/architecture.md")
	for _, dir := range packageDirs(t) {
		if !strings.Contains(doc, "`"+dir+"`") {
			t.Errorf("docs/architecture.md does not name the package %s", dir)
		}
	}
	named := codePath.FindAllStringSubmatch(doc, -1)
	if len(named) < 50 {
		t.Fatalf("docs/architecture.md names only %d paths", len(named))
	}
	for _, m := range named {
		p := strings.TrimSuffix(strings.TrimSuffix(m[1], "…"), "/")
		if strings.Contains(p, "<") || strings.HasSuffix(p, "view") && strings.HasPrefix(p, "views/pages/<") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", m[1])
		}
	}
}

// TestReadmeFirstScreen: the README's first 60 lines say what the service is, show a
// screenshot of each device and give the two commands: run it, test it.
func TestReadmeFirstScreen(t *testing.T) {
	lines := strings.Split(read(t, "README.md"), "\n")
	first := strings.Join(lines[:min(60, len(lines))], "\n")
	for _, want := range []string{"backend-for-frontend", "go run ./cmd/web", "make test"} {
		if !strings.Contains(first, want) {
			t.Errorf("the README's first 60 lines do not say %q", want)
		}
	}
	shots := regexp.MustCompile(`src="(docs/screenshots/[^"]+)"`).FindAllStringSubmatch(first, -1)
	devices := map[string]bool{}
	for _, m := range shots {
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			t.Errorf("the README shows %s, which does not exist", m[1])
		}
		for _, d := range []string{"phone", "desktop", "kiosk"} {
			if strings.Contains(m[1], d) {
				devices[d] = true
			}
		}
	}
	if len(devices) != 3 {
		t.Errorf("the README's first screen shows %v, want a phone, the counter (desktop) and the kiosk", devices)
	}
	// The test command CI runs is the README's.
	if ci := read(t, ".ci/run"); !strings.Contains(ci, "make test") {
		t.Error(".ci/run does not run the README's test command, make test")
	}
}

// TestTestingPageNamesWhatMakeTestRuns: docs/testing.md names every test the Makefile runs
// alone (QUIET_TESTS) and every package it runs under the race detector (RACE_PKGS).
func TestTestingPageNamesWhatMakeTestRuns(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	quiet := regexp.MustCompile(`(?m)^QUIET_TESTS := (.*)$`).FindSubmatch(mk)
	race := regexp.MustCompile(`(?m)^RACE_PKGS := ((?:.*\\\n)*.*)$`).FindSubmatch(mk)
	if quiet == nil || race == nil {
		t.Fatal("the Makefile has no QUIET_TESTS or RACE_PKGS line")
	}
	var want []string
	want = append(want, regexp.MustCompile(`Test\w+`).FindAllString(string(quiet[1]), -1)...)
	for _, pkg := range strings.Fields(strings.ReplaceAll(string(race[1]), `\`, " ")) {
		want = append(want, strings.Trim(pkg, "./"))
	}
	if len(want) < 2 {
		t.Fatalf("read %v from the Makefile", want)
	}
	for _, w := range want {
		if !strings.Contains(string(doc), "`"+w+"`") {
			t.Errorf("docs/testing.md does not name `%s`, which make test runs on its own or under the race detector", w)
		}
	}
}
