package main

import (
	"os"
	"strings"
	"testing"
)

// TestConfigurationDocIsGenerated: docs/configuration.md is what the flag definitions make of
// it (go run ./cmd/web config-doc > docs/configuration.md), so a new or changed setting shows
// there.
func TestConfigurationDocIsGenerated(t *testing.T) {
	want := configurationDoc()
	got, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("docs/configuration.md differs from the flag definitions: run go run ./cmd/web config-doc > docs/configuration.md")
	}
	var c Config
	for _, s := range c.settings() {
		if !strings.Contains(want, "| `-"+s.name+"` | `"+s.envVar()+"` |") {
			t.Errorf("setting -%s is not in the table", s.name)
		}
	}
}

// TestEverySettingDocNamesASetting: a description written for a setting that no longer exists
// is a mistake, not a note.
func TestEverySettingDocNamesASetting(t *testing.T) {
	var c Config
	names := map[string]bool{}
	for _, s := range c.settings() {
		names[s.name] = true
	}
	for name := range settingDocs {
		if !names[name] {
			t.Errorf("settingDocs describes -%s, which is no setting", name)
		}
	}
}
