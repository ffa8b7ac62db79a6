// Command funclen lists the functions longer than a limit (80 lines by default), from `func`
// to the closing brace, in the Go files under the folders given, leaving out tests and
// generated views; it exits 1 when it lists any. CI runs it beside gocyclo: a long function
// reads better as a list of named steps.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	limit := flag.Int("over", 80, "list functions longer than this many lines")
	flag.Parse()
	roots := flag.Args()
	if len(roots) == 0 {
		roots = []string{"."}
	}
	n, err := report(os.Stdout, roots, *limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	if n > 0 {
		os.Exit(1)
	}
}

// report prints each function over limit lines and returns how many there are.
func report(w io.Writer, roots []string, limit int) (int, error) {
	n := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if !counted(p) {
				return nil
			}
			long, err := longFuncs(p, limit)
			for _, l := range long {
				fmt.Fprintln(w, l)
			}
			n += len(long)
			return err
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// counted reports whether p is a Go file of our own code: not a test, not a generated view.
func counted(p string) bool {
	return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") && !strings.HasSuffix(p, "_templ.go")
}

// longFuncs are the functions of file p over limit lines, as "lines name file:line".
func longFuncs(p string, limit int) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.Body.Rbrace).Line
		if lines := end - start + 1; lines > limit {
			out = append(out, fmt.Sprintf("%d %s %s:%d", lines, fn.Name.Name, p, start))
		}
	}
	return out, nil
}
