package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The import rules of internal/bff (docs/architecture.md, "Which way imports point"), checked
// on the source so that a new import that breaks them fails here, not in a review.

const module = "github.com/cinemabff/cinemabff"

// bffDir is internal/bff, one folder up from this package.
const bffDir = ".."

// flows are the flow packages under internal/bff: none imports another, nor the root.
var flows = []string{"booking", "checkout", "kiosk", "staff", "swap", "walletflow"}

// notInKernel are the domain packages whose rules and stores belong below the flows, not in
// the kernel.
var notInKernel = []string{"ledger", "settlement", "staffaccounts", "purchases", "bookings", "changewindow",
	"listings", "seatplans", "names"}

// importsOf returns the packages the non-test Go files of dir import.
func importsOf(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range file.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no imports found: is the path right?", dir)
	}
	return out
}

func TestKernelImportsNoFlowDomainOrPage(t *testing.T) {
	for _, p := range importsOf(t, ".") {
		switch {
		case strings.HasPrefix(p, module+"/views/pages"):
			t.Errorf("the kernel imports %s: pages are the flows'", p)
		case strings.HasPrefix(p, module+"/internal/bff"):
			t.Errorf("the kernel imports %s: it knows no package above it", p)
		}
		for _, d := range notInKernel {
			if p == module+"/internal/"+d {
				t.Errorf("the kernel imports %s: its rules and stores are the flows' or the visits'", p)
			}
		}
	}
}

func TestFlowsImportNoOtherFlowNorTheRoot(t *testing.T) {
	for _, flow := range flows {
		for _, p := range importsOf(t, filepath.Join(bffDir, flow)) {
			if p == module+"/internal/bff" {
				t.Errorf("%s imports the root package", flow)
			}
			for _, other := range flows {
				if other != flow && p == module+"/internal/bff/"+other {
					t.Errorf("%s imports the flow %s: what two flows share goes to visit or words", flow, other)
				}
			}
		}
	}
	// What the flows share imports no flow either, nor a flow's page: pages are the flows'.
	for _, shared := range []string{"visit", "words"} {
		for _, p := range importsOf(t, filepath.Join(bffDir, shared)) {
			if p == module+"/internal/bff" || slices.Contains(flows, strings.TrimPrefix(p, module+"/internal/bff/")) {
				t.Errorf("%s imports %s", shared, p)
			}
			if strings.HasPrefix(p, module+"/views/pages") {
				t.Errorf("%s imports the page view %s: pages are the flows'", shared, p)
			}
		}
	}
}

func TestKernelFilesNameNoAudience(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		name := strings.ToLower(d.Name())
		for _, audience := range []string{"kiosk", "staff", "counter", "swap"} {
			if strings.Contains(name, audience) {
				t.Errorf("%s names %s: the kernel knows no audience; it belongs to that flow", path, audience)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("kernel.go"); err != nil || n < 10 {
		t.Fatalf("walked %d entries: is this the kernel's folder? (%v)", n, err)
	}
}

// TestFlowsNameWhatTheyUse: a flow's Handler holds the things it uses by name, never the
// kernel or the visits whole.
func TestFlowsNameWhatTheyUse(t *testing.T) {
	for _, flow := range flows {
		files, err := filepath.Glob(filepath.Join(bffDir, flow, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok || ts.Name.Name != "Handler" {
					return true
				}
				found = true
				for _, field := range ts.Type.(*ast.StructType).Fields.List {
					if typ := types.ExprString(field.Type); typ == "*web.Kernel" || typ == "*visit.Visits" {
						t.Errorf("%s: Handler holds %s whole", flow, typ)
					}
				}
				return false
			})
		}
		if !found {
			t.Errorf("%s: no Handler type found", flow)
		}
	}
}

// A package imported under another name is a package that should have had that name: no
// file of the module (but templ's generated ones, which alias by design) renames one of ours.
func TestNoOwnPackageImportedUnderAnAlias(t *testing.T) {
	root := filepath.Join(bffDir, "..", "..")
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_templ.go"):
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		for _, im := range file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if im.Name != nil && im.Name.Name != "_" && (p == module || strings.HasPrefix(p, module+"/")) {
				t.Errorf("%s imports %s as %s", path, p, im.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("only %d Go files found under %s: is the path right?", seen, root)
	}
}
