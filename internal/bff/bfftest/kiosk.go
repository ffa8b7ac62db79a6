package bfftest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/views/components"
)

// KioskHarness is a server with the sandbox and a client enrolled as a lobby kiosk the way a
// supervisor does it (device_helpers_test.go); nobody is signed in afterwards.
func KioskHarness(t *testing.T, o HarnessOpts) *Harness {
	t.Helper()
	o.Sandbox = true
	h := NewHarness(t, o)
	h.Enrol(device.Kiosk)
	return h
}

// Collect submits the collect form by number and e-mail.
func (h *Harness) Collect(number, email string) (*http.Response, string) {
	h.T.Helper()
	return h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"cinema": {"0001"}, "number": {number}, "email": {email}})
}

// HeldSeats are the seats of the visit's purchase, from its seat page.
func (h *Harness) HeldSeats() []cinema.SeatPosition {
	h.T.Helper()
	var out []cinema.SeatPosition
	for _, v := range h.CheckedSeats()["seat"] {
		p, ok := components.ParseSeatValue(v)
		if !ok {
			h.T.Fatalf("seat value %q", v)
		}
		out = append(out, p)
	}
	return out
}

// SeatStates reads the seats' availability from the upstream's seat plan.
func (h *Harness) SeatStates(session string, seats []cinema.SeatPosition) []cinema.SeatAvailability {
	h.T.Helper()
	plan, err := h.Srv.Kernel.Ticketing.GetSeatPlan(context.Background(), "0001", session)
	if err != nil {
		h.T.Fatal(err)
	}
	var out []cinema.SeatAvailability
	for _, p := range seats {
		s, ok := plan.Seat(p)
		if !ok {
			h.T.Fatalf("no seat %+v in the plan", p)
		}
		out = append(out, s.Availability)
	}
	return out
}

// SignedTicketCode is the signed code of 100002's first ticket, as its QR code carries it.
func SignedTicketCode(t *testing.T, h *Harness) string {
	t.Helper()
	return TicketCodes(t, h, 100002)[0]
}

// TicketCodes are the codes on the booking's tickets as they are now, in booking order.
func TicketCodes(t *testing.T, h *Harness, number int64) []string {
	t.Helper()
	b, err := h.Srv.Visits.ReadBooking(context.Background(), "0001", number)
	if err != nil {
		t.Fatal(err)
	}
	cards, err := tickets.Cards(b, h.Srv.Mail.Signer, nil, "en")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cards {
		out = append(out, c.Payload)
	}
	return out
}

// KeysOf are the keys that type s into field.
func KeysOf(field, s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, field+":"+string(r))
	}
	return out
}

// CollectRefused posts a collection and checks that it printed nothing and said want.
func (h *Harness) CollectRefused(t *testing.T, form url.Values, want string) {
	t.Helper()
	resp, body := h.Post("/kiosk/collect", "/kiosk/collect", form)
	doc := h.Doc(body)
	if resp.StatusCode == http.StatusSeeOther || !strings.Contains(doc.Find("main").Text(), want) {
		t.Fatalf("collect %v: status %d, want %q: %s", form, resp.StatusCode, want, doc.Find("main").Text())
	}
	if n, _ := h.Srv.Collections.Count(context.Background(), "0001", 100004); n != 0 {
		t.Fatalf("a refused collection was recorded")
	}
}

// AcceptEnglish is a browser that asks for English: a kiosk does not listen to it.
var AcceptEnglish = http.Header{"Accept-Language": {"en-GB,en;q=0.9"}}

// StartScreen GETs the kiosk's start screen as a browser that asks for English.
func (h *Harness) StartScreen() *goquery.Document {
	h.T.Helper()
	resp, body := h.Do("GET", "/", nil, AcceptEnglish)
	if resp.StatusCode != http.StatusOK {
		h.T.Fatalf("start screen: %d %s", resp.StatusCode, body)
	}
	if doc := h.Doc(body); doc.Find(`[data-testid="kiosk-attract"]`).Length() == 0 {
		return doc
	}
	// No visit runs: the attract screen's "Touch to start" begins one.
	resp, body = h.Post("/kiosk/begin", "/", nil)
	ExpectRedirect(h.T, resp, body, "/")
	resp, body = h.Do("GET", "/", nil, AcceptEnglish)
	if resp.StatusCode != http.StatusOK {
		h.T.Fatalf("start screen: %d %s", resp.StatusCode, body)
	}
	return h.Doc(body)
}
