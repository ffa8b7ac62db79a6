package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseModules(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // path@version, +update=V, +main
		wantErr bool
	}{
		{name: "empty", in: ""},
		{name: "stream of objects", in: `{"Path":"example.com/app","Main":true}
{"Path":"example.com/a","Version":"v1.0.0","Update":{"Path":"example.com/a","Version":"v1.2.0"}}
{"Path":"example.com/b","Version":"v0.1.0","Indirect":true}`,
			want: []string{"example.com/app@+main", "example.com/a@v1.0.0+update=v1.2.0", "example.com/b@v0.1.0"}},
		{name: "truncated", in: `{"Path":"example.com/a"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mods, err := parseModules(strings.NewReader(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			var got []string
			for _, m := range mods {
				s := m.Path + "@" + m.Version
				if m.Main {
					s += "+main"
				}
				if m.Update != nil {
					s += "+update=" + m.Update.Version
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// An indirect requirement is not looked up (so it is never reported).
func TestDirectRequires(t *testing.T) {
	in := `{"Module":{"Path":"example.com/app"},"Go":"1.26","Require":[
{"Path":"example.com/a","Version":"v1.0.0"},
{"Path":"example.com/indirect","Version":"v0.1.0","Indirect":true},
{"Path":"example.com/b","Version":"v2.0.0"}]}`
	got, err := directRequires(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := "example.com/a example.com/b"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := directRequires(strings.NewReader(`{"Require":[`)); err == nil {
		t.Error("truncated output accepted")
	}
}

func TestParseTable(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    map[string]string // module -> reason
		wantErr bool
	}{
		{
			name: "reasons, blanks and dashes",
			doc: `# Dependencies

| Module | Why we use it | Behind its latest release because |
|---|---|---|
| ` + "`example.com/a`" + ` | routing | needs Go 1.99 |
| example.com/b | mail |  |
| example.com/c | x | — |
| example.com/d | y | - |
`,
			want: map[string]string{"example.com/a": "needs Go 1.99", "example.com/b": "", "example.com/c": "", "example.com/d": ""},
		},
		{
			name: "another table before it and text after it",
			doc: `| Setting | Meaning |
|---|---|
| example.com/x | not a dependency |

| Module | Why | Behind because |
|:--|:--|:--|
| example.com/a | a | old API |

Text mentioning | example.com/z | later.
| example.com/z | z | not in the table |
`,
			want: map[string]string{"example.com/a": "old API"},
		},
		{
			name: "short row has no reason",
			doc:  "| Module | Why | Behind because |\n|---|---|---|\n| example.com/a | a |\n",
			want: map[string]string{"example.com/a": ""},
		},
		{
			// A table with no rows ends at its end: the scan does not run on into a later table.
			name: "empty table before another table",
			doc: `| Module | Why | Behind because |
|---|---|---|

| Module | Why | Behind because |
|---|---|---|
| example.com/z | z | not the dependency table |
`,
			want: map[string]string{},
		},
		{name: "no table", doc: "# Dependencies\n\nNone.\n", wantErr: true},
		{name: "table without reason column", doc: "| Module | Why |\n|---|---|\n| example.com/a | a |\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := parseTable(strings.NewReader(tt.doc))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if len(rows) != len(tt.want) {
				t.Errorf("got %d rows %v, want %d", len(rows), rows, len(tt.want))
			}
			for mod, reason := range tt.want {
				got, ok := rows[mod]
				if !ok {
					t.Errorf("%s: no row", mod)
					continue
				}
				if got != reason {
					t.Errorf("%s: reason %q, want %q", mod, got, reason)
				}
			}
		})
	}
}

func TestReport(t *testing.T) {
	update := func(v string) *struct{ Version string } { return &struct{ Version string }{v} }
	mods := []Module{
		{Path: "example.com/app", Main: true},
		{Path: "example.com/current", Version: "v1.0.0"},
		{Path: "example.com/behind-with-reason", Version: "v1.0.0", Update: update("v1.1.0")},
		{Path: "example.com/behind", Version: "v2.0.0", Update: update("v2.0.1")},
	}
	tests := []struct {
		name       string
		mods       []Module
		rows       map[string]string
		wantFailed bool
		wantOut    []string
		notOut     []string
	}{
		{
			name:       "behind without a reason fails",
			mods:       mods,
			rows:       map[string]string{"example.com/current": "", "example.com/behind-with-reason": "needs Go 1.99", "example.com/behind": ""},
			wantFailed: true,
			wantOut: []string{
				"FAIL example.com/behind v2.0.0 -> v2.0.1: no reason in deps.md",
				"ok   example.com/behind-with-reason v1.0.0 -> v1.1.0: needs Go 1.99",
				"1 direct dependencies behind without a reason",
			},
			notOut: []string{"example.com/current v", "note:"},
		},
		{
			name:    "every one behind has a reason",
			mods:    mods,
			rows:    map[string]string{"example.com/current": "", "example.com/behind-with-reason": "r1", "example.com/behind": "r2"},
			wantOut: []string{"ok   example.com/behind v2.0.0 -> v2.0.1: r2"},
			notOut:  []string{"FAIL"},
		},
		{
			name:    "all current; a missing row is a note, not a failure",
			mods:    []Module{{Path: "example.com/app", Main: true}, {Path: "example.com/current", Version: "v1.0.0"}},
			rows:    map[string]string{},
			wantOut: []string{"every direct dependency is at its latest release", "note: example.com/current is a direct dependency without a row"},
			notOut:  []string{"FAIL", "example.com/app"},
		},
		{
			name:       "a module go list could not look up fails",
			mods:       []Module{{Path: "example.com/gone", Version: "v1.0.0", Error: &struct{ Err string }{"not found"}}},
			rows:       map[string]string{"example.com/gone": ""},
			wantFailed: true,
			wantOut:    []string{"FAIL example.com/gone: not found"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			failed := report(&out, "deps.md", tt.mods, tt.rows)
			if failed != tt.wantFailed {
				t.Errorf("failed = %v, want %v\n%s", failed, tt.wantFailed, out.String())
			}
			for _, s := range tt.wantOut {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.notOut {
				if strings.Contains(out.String(), s) {
					t.Errorf("output has %q:\n%s", s, out.String())
				}
			}
		})
	}
}
