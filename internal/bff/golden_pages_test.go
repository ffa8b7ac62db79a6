package bff_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/goldenapi"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// These tests run the pages against an upstream that is not our sandbox: internal/goldenapi
// answers with the golden bodies of the real wire (Vista names, seat labels without
// positions, no film or time on a booking, no IsExternal, local show times). What passes
// here needs none of the sandbox's extras.

func goldenHarness(t *testing.T) (*bfftest.Harness, *goldenapi.Server) {
	t.Helper()
	g := goldenapi.New(os.DirFS("../upstream/testdata/golden"), bfftest.TestToken)
	return bfftest.NewHarness(t, bfftest.HarnessOpts{Golden: g, Now: goldenNow}), g
}

// goldenNow is the golden bodies' day before their 20:30 show (Berlin): changes are still
// open then (the change cut-off compares the clock with the listed showtime).
func goldenNow() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

func findGolden(t *testing.T, h *bfftest.Harness) {
	t.Helper()
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {"Ada@Example.com"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("find: status %d: %s", resp.StatusCode, h.Doc(body).Find("main").Text())
	}
}

func TestGoldenBookingPage(t *testing.T) {
	h, g := goldenHarness(t)
	findGolden(t, h)
	doc := h.Page("/booking/current", http.StatusOK)
	main := doc.Find("main").Text()
	// Film, time (20:30 in Berlin) and screen come from the listing, not from the booking.
	for _, want := range []string{"100002", "Long Night, The", "Sunday 22 November 2026, 20:30", "Screen 1", "€27.00"} {
		if !strings.Contains(main, want) {
			t.Errorf("booking page lacks %q: %s", want, main)
		}
	}
	// Nothing says how the payment was taken: changing is offered, not refused on a guess.
	if doc.Find(`[data-testid="action-edit"] button[disabled]`).Length() != 0 {
		t.Errorf("edit disabled: %s", doc.Find(`[data-testid="action-edit"]`).Text())
	}
	if q := g.Query(upstream.OpListSessions); q != "$filter=CinemaId%20eq%20'0001'" {
		t.Errorf("sessions were asked with %q", q)
	}
}

func TestGoldenSwapPagePlacesSeatsByLabel(t *testing.T) {
	h, _ := goldenHarness(t)
	findGolden(t, h)
	resp, body := h.Get(bfftest.SwapPath(100002, ""))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("swap page: %d: %s", resp.StatusCode, h.Doc(body).Find("main").Text())
	}
	doc := h.Doc(body)
	if doc.Find(`[data-testid="swap-form"]`).Length() != 1 {
		t.Fatalf("no swap form: %s", doc.Find(`[data-testid="swap-reason"]`).Text())
	}
	// F12 and F13 are rows "F", seats "12" and "13" on the wire; on the plan, row index 5.
	for _, label := range []string{"Row F, seat 12", "Row F, seat 13"} {
		found := false
		doc.Find(`[role="img"][aria-label]`).Each(func(_ int, s *goquery.Selection) {
			if l, _ := s.Attr("aria-label"); strings.HasPrefix(l, label+",") && strings.HasSuffix(l, "your current seat") {
				found = true
			}
		})
		if !found {
			t.Errorf("%s is not shown as yours on the map", label)
		}
	}
}

func TestGoldenEditStarts(t *testing.T) {
	h, g := goldenHarness(t)
	findGolden(t, h)
	doc := h.StartEdit(t)
	if !strings.Contains(doc.Find("main").Text(), "Adult") {
		t.Errorf("edit page: %s", doc.Find("main").Text())
	}
	if b := string(g.Body(upstream.OpGetSingleBooking)); b != `{"CinemaId":"0001","BookingNumber":"100002"}` {
		t.Errorf("booking request %s", b)
	}
}

func TestGoldenRefusedTokenIsNotThePersonsFault(t *testing.T) {
	g := goldenapi.New(os.DirFS("../upstream/testdata/golden"), "the-real-token")
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Golden: g, GoldenToken: "a-wrong-token"})
	resp, body := h.Get("/booking")
	text := h.Doc(body).Find("main").Text()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(text, "cannot be reached right now") {
		t.Fatalf("find page with a refused token: %d: %s", resp.StatusCode, text)
	}
	if strings.Contains(text, "digits only") {
		t.Fatal("the person is blamed for the cinema's configuration")
	}
}
