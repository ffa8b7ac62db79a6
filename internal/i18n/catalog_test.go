package i18n

import (
	"encoding/json"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// catalogFiles reads every locales/*.json as area → language → id → forms (a plain message
// is the single form "other").
func catalogFiles(t *testing.T) map[string]map[string]map[string]map[string]string {
	t.Helper()
	names, err := fs.Glob(localeFiles, "locales/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no catalogs: %v", err)
	}
	out := map[string]map[string]map[string]map[string]string{}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".json")
		dot := strings.LastIndex(base, ".")
		if dot < 0 {
			t.Fatalf("%s: name must be <area>.<lang>.json", n)
		}
		area, lang := base[:dot], base[dot+1:]
		buf, _ := fs.ReadFile(localeFiles, n)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(buf, &raw); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		msgs := map[string]map[string]string{}
		for id, v := range raw {
			var s string
			if json.Unmarshal(v, &s) == nil {
				msgs[id] = map[string]string{"other": s}
				continue
			}
			var forms map[string]string
			if err := json.Unmarshal(v, &forms); err != nil {
				t.Fatalf("%s: %s is neither a string nor plural forms: %v", n, id, err)
			}
			msgs[id] = forms
		}
		if out[area] == nil {
			out[area] = map[string]map[string]map[string]string{}
		}
		out[area][lang] = msgs
	}
	return out
}

var placeholder = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

// TestCatalogsComplete fails when a language lacks a message another has, when a message's
// placeholders differ between languages or between its plural forms, or when a plural message
// lacks a form its language needs.
func TestCatalogsComplete(t *testing.T) {
	ids := map[string]string{} // id → area, to catch one id in two areas
	for area, langs := range catalogFiles(t) {
		for _, want := range Languages {
			if langs[want.String()] == nil {
				t.Errorf("area %s has no %s catalog (locales/%s.%s.json)", area, want, area, want)
			}
		}
		en := langs["en"]
		for id := range en {
			if other, dup := ids[id]; dup && other != area {
				t.Errorf("%s is in both %s and %s", id, other, area)
			}
			ids[id] = area
		}
		for lang, msgs := range langs {
			if !slices.ContainsFunc(Languages, func(l language.Tag) bool { return l.String() == lang }) {
				t.Errorf("%s.%s.json: %s is not a site language", area, lang, lang)
			}
			for id := range msgs {
				if _, ok := en[id]; !ok {
					t.Errorf("%s.%s.json has %s, which English lacks", area, lang, id)
				}
			}
			for id, enForms := range en {
				forms, ok := msgs[id]
				if !ok {
					t.Errorf("%s.%s.json misses %s", area, lang, id)
					continue
				}
				want := placeholders(enForms["other"])
				plural := len(enForms) > 1
				if plural && (forms["one"] == "" || forms["other"] == "") {
					t.Errorf("%s.%s.json: %s is plural in English and needs \"one\" and \"other\" forms, has %v", area, lang, id, forms)
				}
				for form, text := range forms {
					if strings.TrimSpace(text) == "" {
						t.Errorf("%s.%s.json: %s (%s) is empty", area, lang, id, form)
					}
					got, wantHere := placeholders(text), want
					if form == "one" {
						// The singular may spell its count out ("one ticket", "ein Ticket").
						noCount := func(p string) bool { return p == "Count" }
						got = slices.DeleteFunc(got, noCount)
						wantHere = slices.DeleteFunc(slices.Clone(want), noCount)
					}
					if !slices.Equal(got, wantHere) {
						t.Errorf("%s.%s.json: %s (%s) has placeholders %v, English has %v", area, lang, id, form, got, wantHere)
					}
				}
			}
		}
	}
}
