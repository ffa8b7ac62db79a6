package kiosk_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// kioskDisplayOf is what a kiosk page shows of the accessibility controls: whether larger text
// and high contrast are on (the body's classes), and whether each switch says so (aria-pressed).
func kioskDisplayOf(t *testing.T, doc *goquery.Document) (large, contrast bool) {
	t.Helper()
	cls := " " + doc.Find("body").AttrOr("class", "") + " "
	large, contrast = strings.Contains(cls, " kiosk-large-text "), strings.Contains(cls, " kiosk-high-contrast ")
	for sel, on := range map[string]bool{`[data-testid="display-large"]`: large, `[data-testid="display-contrast"]`: contrast} {
		b := doc.Find(`form[data-testid="kiosk-display"] ` + sel)
		if b.Length() != 1 {
			t.Fatalf("%d switches %s on the page, want 1", b.Length(), sel)
		}
		if got := b.AttrOr("aria-pressed", ""); got != map[bool]string{true: "true", false: "false"}[on] {
			t.Errorf("switch %s says aria-pressed=%q with the setting %v", sel, got, on)
		}
	}
	return large, contrast
}

// TestKioskDisplayToggles: on a kiosk, "Larger text" and "High contrast" are on every screen
// (the attract screen too); each press switches one for the visit and goes back to the page it
// was pressed on; the choice is kept on the visit's next pages, and is gone when the visit ends
// (Start over, the idle reset), so the next guest gets the usual look.
func TestKioskDisplayToggles(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	if large, contrast := kioskDisplayOf(t, h.Page("/", http.StatusOK)); large || contrast {
		t.Fatalf("a fresh kiosk starts with larger text %v, high contrast %v", large, contrast)
	}
	h.StartScreen()

	steps := []struct {
		toggle, back, then    string // the switch pressed, on which page, and the next page looked at
		wantLarge, wantHighCt bool
	}{
		{"large", "/kiosk/collect", "/kiosk/collect", true, false},
		{"contrast", "/whats-on", "/whats-on", true, true},
		{"", "/whats-on", "/", true, true},                       // no switch named: nothing changes
		{"large", "/", "/kiosk/collect", false, true},            // pressed again: off
		{"large", "https://elsewhere.example/", "/", true, true}, // back only ever to this site
	}
	for _, s := range steps {
		resp, body := h.Post("/kiosk/display", "/", url.Values{"toggle": {s.toggle}, "back": {s.back}})
		want := s.back
		if strings.HasPrefix(want, "https:") {
			want = "/"
		}
		bfftest.ExpectRedirect(t, resp, body, want)
		large, contrast := kioskDisplayOf(t, h.Page(s.then, http.StatusOK))
		if large != s.wantLarge || contrast != s.wantHighCt {
			t.Errorf("after %q on %s, %s shows larger text %v, high contrast %v; want %v, %v",
				s.toggle, s.back, s.then, large, contrast, s.wantLarge, s.wantHighCt)
		}
	}

	// The visit ends: the next guest gets the usual look, on the attract screen and after it.
	resp, body := h.Post("/visit/reset", "/", nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	attract := h.Page("/", http.StatusOK)
	if attract.Find(`[data-testid="kiosk-attract"]`).Length() != 1 {
		t.Fatal("after the visit ended the kiosk does not show the attract screen")
	}
	if large, contrast := kioskDisplayOf(t, attract); large || contrast {
		t.Errorf("after the visit ended: larger text %v, high contrast %v", large, contrast)
	}
	if large, contrast := kioskDisplayOf(t, h.StartScreen()); large || contrast {
		t.Errorf("the next visit starts with larger text %v, high contrast %v", large, contrast)
	}
}

// TestKioskDisplayOnlyOnKiosks: a customer's pages have no kiosk display switches, and
// posting one changes nothing there.
func TestKioskDisplayOnlyOnKiosks(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	if n := h.Page("/", http.StatusOK).Find(`[data-testid="kiosk-display"]`).Length(); n != 0 {
		t.Fatalf("a customer's page has %d kiosk display switches", n)
	}
	resp, body := h.Post("/kiosk/display", "/booking", url.Values{"toggle": {"large"}, "back": {"/whats-on"}})
	bfftest.ExpectRedirect(t, resp, body, "/whats-on")
	if cls := h.Page("/whats-on", http.StatusOK).Find("body").AttrOr("class", ""); strings.Contains(cls, "kiosk-") {
		t.Errorf("a customer's page has body class %q", cls)
	}
}
