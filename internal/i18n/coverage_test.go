package i18n

import (
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/a-h/templ/parser/v2"
	"golang.org/x/text/language"
)

// repoRoot is the module root, two folders up from this package.
const repoRoot = "../.."

// wordAttributes are the attributes whose constant values people read or hear.
var wordAttributes = map[string]bool{"aria-label": true, "title": true, "alt": true, "placeholder": true, "aria-roledescription": true, "aria-description": true, "aria-valuetext": true}

// TestViewsHaveNoUntranslatedWords fails for words written into a .templ file as they are: a
// text node with a letter in it, or a constant aria-label, title, alt or placeholder. Words
// belong in the catalogs and reach the page through T (or a view model that localized them).
func TestViewsHaveNoUntranslatedWords(t *testing.T) {
	files := 0
	err := filepath.WalkDir(filepath.Join(repoRoot, "views"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".templ") {
			return err
		}
		files++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tf, err := parser.ParseString(string(src))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		for _, n := range tf.Nodes {
			if ht, ok := n.(*parser.HTMLTemplate); ok {
				walkWords(ht.Children, func(what string, r parser.Range) {
					t.Errorf("%s:%d: untranslated %s", p, r.From.Line+1, what)
				})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("found only %d .templ files: is repoRoot right?", files)
	}
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

// walkWords calls found for every untranslated word in nodes.
func walkWords(nodes []parser.Node, found func(what string, r parser.Range)) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *parser.Text:
			if v := strings.TrimSpace(html.UnescapeString(n.Value)); hasLetter(v) {
				found("text "+strconvQuote(v), n.Range)
			}
		case *parser.Element:
			switch n.Name {
			case "kbd", "code", "style", "script":
				continue // key names, code and scripts are not prose
			}
			walkAttrs(n.Attributes, found)
			walkWords(n.Children, found)
		case *parser.IfExpression:
			walkWords(n.Then, found)
			for _, ei := range n.ElseIfs {
				walkWords(ei.Then, found)
			}
			walkWords(n.Else, found)
		case *parser.ForExpression:
			walkWords(n.Children, found)
		case *parser.SwitchExpression:
			for _, c := range n.Cases {
				walkWords(c.Children, found)
			}
		case *parser.TemplElementExpression:
			walkWords(n.Children, found)
		}
	}
}

func walkAttrs(attrs []parser.Attribute, found func(what string, r parser.Range)) {
	for _, a := range attrs {
		switch a := a.(type) {
		case *parser.ConstantAttribute:
			if wordAttributes[a.Key.String()] && hasLetter(a.Value) {
				found("attribute "+a.Key.String()+"="+strconvQuote(a.Value), a.Range)
			}
		case *parser.ConditionalAttribute:
			walkAttrs(a.Then, found)
			walkAttrs(a.Else, found)
		}
	}
}

func strconvQuote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return `"` + s + `"`
}

// messageUse finds the message ids the code asks for by name: T(ctx, "id"), l.T("id", …),
// N(ctx, "id", n), l.N("id", …), Around("id", …), and msg("id") (a view model's deferred
// message). An id built at run time ("time.month."+m) is checked by the tests of its code.
var messageUse = regexp.MustCompile(`(?:\bT|\bN|\bAround|\b[Mm]sg|\bTf)\(\s*(?:[A-Za-z_][\w.]*\s*,\s*)?"([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)"\s*[,)]`)

// TestEveryMessageUsedIsInTheCatalog fails when views or code ask for a message id the English
// catalog lacks (TestCatalogsComplete then holds German to English).
func TestEveryMessageUsedIsInTheCatalog(t *testing.T) {
	c, err := Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	en := c.For(language.English)
	uses := 0
	for _, dir := range []string{"views", "internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if filepath.Base(p) == "i18n" {
					return filepath.SkipDir
				}
				return nil
			}
			if !(strings.HasSuffix(p, ".templ") || strings.HasSuffix(p, ".go")) || strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, "_templ.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range messageUse.FindAllStringSubmatch(string(src), -1) {
				uses++
				if !en.Has(m[1]) {
					t.Errorf("%s asks for message %q, which the catalog lacks", p, m[1])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if uses == 0 {
		t.Fatal("found no message ids in the code: is the pattern right?")
	}
}
