package kiosk_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestKioskSaleScreensResetWithoutJavaScript: every screen of a sale on a kiosk (the start, what's
// on, the tickets, the seats with seats held, the e-mail page, the review) carries the idle
// reset for a browser without JavaScript: a meta refresh to the warning page that returns to
// that screen. A kiosk left on the seat step would otherwise hold its seats.
func TestKioskSaleScreensResetWithoutJavaScript(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	h.EnrolWithReader(device.Kiosk) // paid on the kiosk's reader: no details asked
	want := func(path string) {
		t.Helper()
		doc := h.Page(path, http.StatusOK)
		if got, w := noscriptRefresh(doc), "60;url=/kiosk/idle?back="+url.QueryEscape(path); got != w {
			t.Errorf("%s: meta refresh %q, want %q", path, got, w)
		}
	}
	want("/whats-on")
	want("/whats-on/0001/1113")
	resp, body := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	want("/checkout/seats")
	want("/checkout/details")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	want("/checkout")
}

// TestKioskChangeScreensResetWithoutJavaScript: the screens of a change on a kiosk (the booking,
// the change, its seat step) carry the idle reset for a browser without JavaScript too.
func TestKioskChangeScreensResetWithoutJavaScript(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
	for _, path := range []string{"/booking/current", "/booking/edit", "/booking/edit/seats"} {
		doc := h.Page(path, http.StatusOK)
		if got, w := noscriptRefresh(doc), "60;url=/kiosk/idle?back="+url.QueryEscape(path); got != w {
			t.Errorf("%s: meta refresh %q, want %q", path, got, w)
		}
	}
}
