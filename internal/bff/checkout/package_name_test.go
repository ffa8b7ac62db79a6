package checkout_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestPackageTicketSaysItsNameOnce: a package ticket's line on the ticket step is its name and
// how many seats it takes, in each language, never its name and "package of 2" beside it
// ("Paket für zwei (Paket für 2)").
func TestPackageTicketSaysItsNameOnce(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	setLang := h.Speaking("de")
	for _, tc := range []struct{ lang, want string }{
		{"de", "Paket für zwei (für 2 Plätze)"},
		{"en", "Couple package (takes 2 seats)"},
	} {
		setLang(tc.lang)
		_, body := h.Get("/whats-on/0001/1113")
		var lines []string
		h.Doc(body).Find(`[data-testid="tickets-form"] .ticket-name`).Each(func(_ int, s *goquery.Selection) {
			lines = append(lines, strings.Join(strings.Fields(s.Text()), " "))
		})
		found := false
		for _, l := range lines {
			found = found || l == tc.want
			if strings.Count(strings.ToLower(l), "paket") > 1 || strings.Count(strings.ToLower(l), "package") > 1 {
				t.Errorf("%s: %q says package twice", tc.lang, l)
			}
		}
		if !found {
			t.Errorf("%s: no line %q among %q", tc.lang, tc.want, lines)
		}
	}
}
