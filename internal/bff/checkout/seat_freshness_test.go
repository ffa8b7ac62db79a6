package checkout_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestSeatMapFreshnessLineIsTrue: the seat map is not read again while the page is open, so
// its line about the seats' freshness says when they were read (to the minute) and what
// happens next (they are checked again on continuing), not that they are re-read every few
// seconds; in English and in German.
func TestSeatMapFreshnessLineIsTrue(t *testing.T) {
	for _, c := range []struct {
		lang string
		want *regexp.Regexp
		lie  string
	}{
		{"en", regexp.MustCompile(`^Seats as of \d\d:\d\d\. We check your seats again when you continue`), "every few seconds"},
		{"de", regexp.MustCompile(`^Plätze mit Stand \d\d:\d\d Uhr\. Wenn Sie fortfahren, prüfen wir Ihre Plätze noch einmal`), "alle paar Sekunden"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			h.Speaking(c.lang)
			page := "/whats-on/0001/1113"
			resp, body := h.Post(page, page, bfftest.TwoAdults())
			bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
			doc := h.Page("/checkout/seats", http.StatusOK)
			got := bfftest.Squash(doc.Find(`[data-testid="seat-states-as-of"]`).Text())
			if !c.want.MatchString(got) || strings.Contains(got, c.lie) {
				t.Errorf("freshness line %q, want %v", got, c.want)
			}
		})
	}
}
