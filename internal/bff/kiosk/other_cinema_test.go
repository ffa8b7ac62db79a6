package kiosk_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// londonBooking is the sandbox's booking at Riverside Picturehouse (cinema 0002, London).
const (
	london      = "0002"
	londonBook  = 200001
	londonEmail = "paid7@example.com"
)

// londonCode is the signed code on the first ticket of the London booking.
func londonCode(t *testing.T, h *bfftest.Harness) string {
	t.Helper()
	b, err := h.Srv.Visits.ReadBooking(context.Background(), london, londonBook)
	if err != nil {
		t.Fatal(err)
	}
	cards, err := tickets.Cards(b, h.Srv.Mail.Signer, nil, "en")
	if err != nil || len(cards) == 0 {
		t.Fatalf("ticket cards of the London booking: %v", err)
	}
	return cards[0].Payload
}

// TestTicketsBelongToTheirCinema: a kiosk and a counter enrolled at the Berlin cinema refuse,
// in words, a London booking's ticket code and a London booking number asked for by cinema,
// whether to collect (print) its tickets or to open it for a change, also when the number was
// typed into the Berlin form (with the London booking's e-mail at the kiosk); nothing is printed,
// recorded as collected, bound to the visit (so nothing can be changed or paid for) or charged.
// A counter that stands in no one cinema still serves London.
func TestTicketsBelongToTheirCinema(t *testing.T) {
	type attempt struct {
		name, path string
		form       func(code string) url.Values
		where      string // the data-testid of the words
	}
	kioskAttempts := []attempt{
		{"collect by ticket code", "/kiosk/collect", func(code string) url.Values { return url.Values{"code": {code}} }, "collect-scan-error"},
		{"collect by number", "/kiosk/collect", func(string) url.Values {
			return url.Values{"cinema": {london}, "number": {"200001"}, "email": {londonEmail}}
		}, "collect-error"},
		{"change my booking by ticket code", "/booking", func(code string) url.Values { return url.Values{"code": {code}} }, ""},
		// The kiosk's own forms send its cinema: a guest types the London number and e-mail.
		{"change my booking by number typed", "/booking", func(string) url.Values {
			return url.Values{"number": {"200001"}, "email": {londonEmail}}
		}, ""},
		{"collect by number typed", "/kiosk/collect", func(string) url.Values {
			return url.Values{"cinema": {"0001"}, "number": {"200001"}, "email": {londonEmail}}
		}, "collect-error"},
	}
	counterAttempts := []attempt{
		kioskAttempts[0],
		{"collect by number", "/kiosk/collect", func(string) url.Values { return url.Values{"cinema": {london}, "number": {"200001"}} }, "collect-error"},
		{"look up by ticket code", "/booking", func(code string) url.Values { return url.Values{"cinema": {"0001"}, "number": {code}} }, ""},
		{"look up by number", "/booking", func(string) url.Values { return url.Values{"cinema": {london}, "number": {"200001"}} }, ""},
		{"look up by number typed", "/booking", func(string) url.Values { return url.Values{"cinema": {"0001"}, "number": {"200001"}} }, ""},
	}
	devices := []struct {
		name     string
		mode     device.Mode
		attempts []attempt
		want     string
	}{
		{"Berlin kiosk", device.Kiosk, kioskAttempts, "This booking is for Riverside Picturehouse, and this kiosk belongs to Lichtspielhaus Mitte"},
		{"Berlin counter", device.Counter, counterAttempts, "This booking belongs to Riverside Picturehouse, and this terminal belongs to Lichtspielhaus Mitte"},
	}
	for _, d := range devices {
		for _, a := range d.attempts {
			t.Run(d.name+"/"+a.name, func(t *testing.T) {
				h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
				h.EnrolWithReader(d.mode) // at the Berlin cinema, 0001
				if d.mode == device.Counter {
					h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
					h.SignInAs("carl", "clerk horse battery")
				}
				code := londonCode(t, h)
				resp, body := h.Post(a.path, a.path, a.form(code))
				doc := h.Doc(body)
				said := bfftest.Squash(doc.Find("main").Text())
				if a.where != "" {
					said = bfftest.Squash(bfftest.Text(doc, a.where))
				}
				if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(said, d.want) || !strings.Contains(said, "nothing was charged") {
					t.Fatalf("%d, said %q, want %q", resp.StatusCode, said, d.want)
				}
				if n, _ := h.Srv.Collections.Count(context.Background(), london, londonBook); n != 0 {
					t.Errorf("the London tickets were recorded as printed (%d)", n)
				}
				if resp, _ := h.Get("/kiosk/collected"); resp.StatusCode == http.StatusOK {
					t.Errorf("a print view of the London tickets is shown")
				}
				if resp, _ := h.Get("/booking/current"); resp.StatusCode == http.StatusOK {
					t.Errorf("the London booking is open on this device")
				}
				if es, _ := bfftest.Entries(t, h); len(es) != 0 {
					t.Errorf("money moved: %+v", es)
				}
			})
		}
	}
	t.Run("in German", func(t *testing.T) {
		h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
		h.EnrolWithReader(device.Counter)
		h.SignInSupervisor()
		resp, doc := h.GermanPost("/kiosk/collect", "/kiosk/collect", url.Values{"code": {londonCode(t, h)}})
		want := "Diese Buchung gehört zum Kino „Riverside Picturehouse“, und dieses Terminal gehört zum Kino „Lichtspielhaus Mitte“"
		if said := bfftest.Squash(bfftest.Text(doc, "collect-scan-error")); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(said, want) {
			t.Fatalf("%d, said %q", resp.StatusCode, said)
		}
	})
	t.Run("a counter of no one cinema", func(t *testing.T) {
		h := bfftest.CounterHarness(t)
		h.SignInAs("carl", "clerk horse battery")
		resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {london}, "number": {"200001"}})
		bfftest.ExpectRedirect(t, resp, body, "/booking/current")
	})
}
