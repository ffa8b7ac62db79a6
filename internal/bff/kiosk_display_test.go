package bff

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
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
	h := kioskHarness(t, harnessOpts{})
	if large, contrast := kioskDisplayOf(t, h.page("/", http.StatusOK)); large || contrast {
		t.Fatalf("a fresh kiosk starts with larger text %v, high contrast %v", large, contrast)
	}
	h.startScreen()

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
		resp, body := h.post("/kiosk/display", "/", url.Values{"toggle": {s.toggle}, "back": {s.back}})
		want := s.back
		if strings.HasPrefix(want, "https:") {
			want = "/"
		}
		expectRedirect(t, resp, body, want)
		large, contrast := kioskDisplayOf(t, h.page(s.then, http.StatusOK))
		if large != s.wantLarge || contrast != s.wantHighCt {
			t.Errorf("after %q on %s, %s shows larger text %v, high contrast %v; want %v, %v",
				s.toggle, s.back, s.then, large, contrast, s.wantLarge, s.wantHighCt)
		}
	}

	// The visit ends: the next guest gets the usual look, on the attract screen and after it.
	resp, body := h.post("/visit/reset", "/", nil)
	expectRedirect(t, resp, body, "/")
	attract := h.page("/", http.StatusOK)
	if attract.Find(`[data-testid="kiosk-attract"]`).Length() != 1 {
		t.Fatal("after the visit ended the kiosk does not show the attract screen")
	}
	if large, contrast := kioskDisplayOf(t, attract); large || contrast {
		t.Errorf("after the visit ended: larger text %v, high contrast %v", large, contrast)
	}
	if large, contrast := kioskDisplayOf(t, h.startScreen()); large || contrast {
		t.Errorf("the next visit starts with larger text %v, high contrast %v", large, contrast)
	}
}

// TestKioskDisplayOnlyOnKiosks: a customer's pages have no kiosk display switches, and
// posting one changes nothing there.
func TestKioskDisplayOnlyOnKiosks(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	if n := h.page("/", http.StatusOK).Find(`[data-testid="kiosk-display"]`).Length(); n != 0 {
		t.Fatalf("a customer's page has %d kiosk display switches", n)
	}
	resp, body := h.post("/kiosk/display", "/booking", url.Values{"toggle": {"large"}, "back": {"/whats-on"}})
	expectRedirect(t, resp, body, "/whats-on")
	if cls := h.page("/whats-on", http.StatusOK).Find("body").AttrOr("class", ""); strings.Contains(cls, "kiosk-") {
		t.Errorf("a customer's page has body class %q", cls)
	}
}
