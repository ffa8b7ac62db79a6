// Command depcheck lists the module's direct dependencies that are behind their latest
// release (go list -m -u) and fails for each one that has no written reason in
// docs/dependencies.md, so a dependency falls behind only on purpose.
//
//	go run ./tools/depcheck [-doc docs/dependencies.md]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Module is the part of `go list -m -u -json` output the check reads.
type Module struct {
	Path    string
	Version string
	Main    bool
	Update  *struct{ Version string }
	Error   *struct{ Err string }
}

func main() {
	doc := flag.String("doc", "docs/dependencies.md", "the dependency table with the reasons")
	flag.Parse()
	failed, err := run(*doc, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "depcheck:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

func run(docPath string, out io.Writer) (failed bool, err error) {
	// With GOPROXY=off `go list -m -u` reports no updates and no error: it would pass
	// without having looked.
	if proxy, err := exec.Command("go", "env", "GOPROXY").Output(); err == nil && strings.TrimSpace(string(proxy)) == "off" {
		return false, errors.New("GOPROXY=off: cannot look up the latest releases")
	}
	// Only the direct requirements are looked up: asking about all modules also loads the
	// retractions of every indirect one, and one the proxy no longer serves fails the run.
	// go.mod names them (go mod edit -json), without loading the module graph.
	gomod, err := goCmd("mod", "edit", "-json")
	if err != nil {
		return false, err
	}
	direct, err := directRequires(bytes.NewReader(gomod))
	if err != nil {
		return false, err
	}
	raw, err := goCmd(append([]string{"list", "-m", "-u", "-json"}, direct...)...)
	if err != nil {
		return false, err
	}
	mods, err := parseModules(bytes.NewReader(raw))
	if err != nil {
		return false, err
	}
	f, err := os.Open(docPath)
	if err != nil {
		return false, fmt.Errorf("read the reasons: %w", err)
	}
	defer f.Close()
	rows, err := parseTable(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", docPath, err)
	}
	return report(out, docPath, mods, rows), nil
}

// goCmd runs `go args…` and returns what it printed.
func goCmd(args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args[:min(len(args), 4)], " "), err, strings.TrimSpace(stderr.String()))
	}
	return raw, nil
}

// directRequires reads `go mod edit -json` output and returns the paths of the requirements
// not marked // indirect.
func directRequires(r io.Reader) ([]string, error) {
	var gomod struct {
		Require []struct {
			Path     string
			Indirect bool
		}
	}
	if err := json.NewDecoder(r).Decode(&gomod); err != nil {
		return nil, fmt.Errorf("parse go mod edit -json output: %w", err)
	}
	var paths []string
	for _, req := range gomod.Require {
		if !req.Indirect {
			paths = append(paths, req.Path)
		}
	}
	return paths, nil
}

// parseModules reads the stream of JSON objects `go list -m -json` prints.
func parseModules(r io.Reader) ([]Module, error) {
	var mods []Module
	dec := json.NewDecoder(r)
	for {
		var m Module
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return mods, nil
		}
		if err != nil {
			return nil, fmt.Errorf("parse go list output: %w", err)
		}
		mods = append(mods, m)
	}
}

// parseTable reads the dependency table: the markdown table whose header has a "Module"
// column and a column whose title contains "behind" (the reason). Module names may be
// written in backticks. It returns each module's reason for being behind its latest release; a
// reason of "", "-" or "—" is no reason ("").
func parseTable(r io.Reader) (map[string]string, error) {
	rows := map[string]string{}
	modCol, reasonCol := -1, -1
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			if modCol >= 0 {
				break // the table ended
			}
			continue
		}
		cells := splitRow(line)
		if modCol < 0 {
			for i, c := range cells {
				switch lc := strings.ToLower(c); {
				case lc == "module":
					modCol = i
				case strings.Contains(lc, "behind"):
					reasonCol = i
				}
			}
			if modCol < 0 || reasonCol < 0 {
				modCol, reasonCol = -1, -1
			}
			continue
		}
		if isSeparator(cells) || modCol >= len(cells) {
			continue
		}
		var reason string
		if reasonCol < len(cells) {
			reason = cells[reasonCol]
		}
		if reason == "-" || reason == "—" {
			reason = ""
		}
		rows[strings.Trim(cells[modCol], "`")] = reason
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if modCol < 0 {
		return nil, errors.New(`no table with a "Module" column and a "Behind ..." column`)
	}
	return rows, nil
}

func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" {
			return false
		}
	}
	return true
}

// Behind is a direct dependency with a newer release.
type Behind struct {
	Path, Version, Latest, Reason string
}

// behind lists the dependencies (all direct: only those are looked up) that have an Update,
// with the reason written for each (if any), sorted by path.
func behind(mods []Module, rows map[string]string) []Behind {
	var out []Behind
	for _, m := range mods {
		if m.Main || m.Update == nil {
			continue
		}
		out = append(out, Behind{Path: m.Path, Version: m.Version, Latest: m.Update.Version, Reason: rows[m.Path]})
	}
	slices.SortFunc(out, func(a, b Behind) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// report prints what is behind (and notes direct dependencies the table does not list) and
// says whether any is behind without a reason.
func report(out io.Writer, docPath string, mods []Module, rows map[string]string) (failed bool) {
	for _, m := range mods {
		if m.Error != nil {
			fmt.Fprintf(out, "FAIL %s: %s\n", m.Path, m.Error.Err)
			failed = true
		}
	}
	list := behind(mods, rows)
	if len(list) == 0 {
		fmt.Fprintln(out, "every direct dependency is at its latest release")
	} else {
		fmt.Fprintln(out, "direct dependencies behind their latest release:")
	}
	missing := 0
	for _, b := range list {
		if b.Reason == "" {
			missing++
			fmt.Fprintf(out, "  FAIL %s %s -> %s: no reason in %s\n", b.Path, b.Version, b.Latest, docPath)
			continue
		}
		fmt.Fprintf(out, "  ok   %s %s -> %s: %s\n", b.Path, b.Version, b.Latest, b.Reason)
	}
	for _, m := range mods {
		if _, ok := rows[m.Path]; !ok && !m.Main {
			fmt.Fprintf(out, "note: %s is a direct dependency without a row in %s (say why we use it)\n", m.Path, docPath)
		}
	}
	if missing > 0 {
		fmt.Fprintf(out, "%d direct dependencies behind without a reason: update them (go get MODULE@latest && go mod tidy) or write why in %s\n", missing, docPath)
		failed = true
	}
	return failed
}
