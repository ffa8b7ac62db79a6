package checkout

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestRatingWords: a rating is said in words or not at all, never "Rated 0".
func TestRatingWords(t *testing.T) {
	en, de := webtest.Localizers(t)
	for _, c := range []struct{ rating, en, de string }{
		{"", "", ""},
		{"0", "All ages", "Ohne Altersbeschränkung"},
		{"12", "Age 12+", "Ab 12 Jahren"},
		{" 16 ", "Age 16+", "Ab 16 Jahren"},
		{"PG-13", "Rated PG-13", "Altersfreigabe PG-13"},
	} {
		if got := ratingWords(en, names.Namer{}, "", c.rating); got != c.en {
			t.Errorf("en %q: %q, want %q", c.rating, got, c.en)
		}
		if got := ratingWords(de, names.Namer{}, "", c.rating); got != c.de {
			t.Errorf("de %q: %q, want %q", c.rating, got, c.de)
		}
	}
}
