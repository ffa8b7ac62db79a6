package bff_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// bffSources are the non-test Go files under internal/bff, by path.
func bffSources(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// handlerWord is the name a route's handler goes by on its line: the method or function,
// without its package, receiver and closure suffixes ("booking.(*Handler).startEdit-fm" →
// "startEdit"; "web.(*Kernel).MetricsOnSite.func1" → "MetricsOnSite").
var closureSuffix = regexp.MustCompile(`(\.func\d+)+$|-fm$`)

func handlerWord(fn string) string {
	fn = closureSuffix.ReplaceAllString(fn, "")
	return fn[strings.LastIndex(fn, ".")+1:]
}

// TestEachRouteIsOneLineBesideItsHandler: every route the site registers is written on one
// line that names its path, its handler and its name, so searching for a URL finds the
// handler in one step.
func TestEachRouteIsOneLineBesideItsHandler(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	routes := h.Srv.Kernel.Registered()
	if len(routes) < 80 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	var lines []string
	for _, src := range bffSources(t) {
		lines = append(lines, strings.Split(src, "\n")...)
	}
	for _, r := range routes {
		word := handlerWord(r.Handler)
		found := false
		for _, l := range lines {
			if strings.Contains(l, strconv.Quote(r.Path)) && strings.Contains(l, strconv.Quote(r.Name)) && strings.Contains(l, word) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s %s (%s, handler %s): no line names the path, the handler and the name", r.Method, r.Path, r.Name, word)
		}
	}
}

// urlBuilders are the calls whose first argument (or, for the guards, second) is a route name.
var urlBuilders = map[string]int{"URL": 0, "AbsURL": 0, "Path": 0, "url": 0, "link": 1, "SupervisorsOnly": 1, "isRoute": -1}

// routeNamesUsed finds the route names written in the sources: string literals handed to the
// URL builders, and the route fields of navigation tables.
func routeNamesUsed(t *testing.T, sources map[string]string) map[string]string {
	t.Helper()
	used := map[string]string{}
	fset := token.NewFileSet()
	for p, src := range sources {
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		add := func(e ast.Expr) {
			if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ := strconv.Unquote(lit.Value)
				used[name] = fset.Position(lit.Pos()).String()
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := fn.X.(*ast.SelectorExpr); !ok || x.Sel.Name != "Assets" { // asset paths, not routes
						name = fn.Sel.Name
					}
				case *ast.Ident:
					name = fn.Name
				}
				i, ok := urlBuilders[name]
				switch {
				case !ok:
				case i < 0: // every argument after the first
					for _, a := range n.Args[1:] {
						add(a)
					}
				case len(n.Args) > i:
					add(n.Args[i])
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "route" {
					add(n.Value)
				}
			}
			return true
		})
	}
	return used
}

// TestEveryRouteNameUsedHasARoute: a URL is built only from the name of a registered route;
// a name no route has would build "/" at run time.
func TestEveryRouteNameUsedHasARoute(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	names := map[string]bool{}
	for _, r := range h.Srv.Kernel.Registered() {
		names[r.Name] = true
	}
	used := routeNamesUsed(t, bffSources(t))
	if len(used) < 60 {
		t.Fatalf("found only %d route names in the sources: the scan is broken", len(used))
	}
	for name, where := range used {
		if !names[name] {
			t.Errorf("%s: route name %q has no route", where, name)
		}
	}
}

// TestNoAddressBuiltBeforeTheRoutes: nothing the server builds asks for an address before its
// route is registered (it would get "/" and log the unknown name).
func TestNoAddressBuiltBeforeTheRoutes(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelError}))
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Logger: log})
	h.Page("/", 200)
	if strings.Contains(buf.String(), "unknown route name") || strings.Contains(buf.String(), "route name used for two paths") {
		t.Fatalf("the server logged a route problem:\n%s", buf.String())
	}
}
