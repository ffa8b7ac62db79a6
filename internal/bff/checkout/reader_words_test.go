package checkout_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// occupyReader gives the reader another card-present payment through the Stripe stand-in's
// API, as another device would: the reader is then busy. It returns how to free it again.
func occupyReader(t *testing.T, h *bfftest.Harness, readerID string) (free func()) {
	t.Helper()
	var pi struct {
		ID string `json:"id"`
	}
	standIn(t, h, http.MethodPost, "/v1/payment_intents", url.Values{"amount": {"999"}, "currency": {"eur"}, "payment_method_types[]": {"card_present"}}, &pi)
	standIn(t, h, http.MethodPost, "/v1/terminal/readers/"+readerID+"/process_payment_intent", url.Values{"payment_intent": {pi.ID}}, nil)
	return func() {
		standIn(t, h, http.MethodPost, "/v1/terminal/readers/"+readerID+"/cancel_action", url.Values{}, nil)
	}
}

// TestReaderOutcomesHaveTheirOwnWords: a card declined, the card payment cancelled here, the
// customer's Cancel on the reader, a reader busy with another payment and a reader that does
// not answer are each told in their own words, in English and in German, and none is told as
// a decline.
func TestReaderOutcomesHaveTheirOwnWords(t *testing.T) {
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			h.EnrolWithReader(device.Kiosk)
			l := h.Srv.Kernel.Langs.ForCode(lang)
			page := "/whats-on/0001/1113"
			resp, body := h.Post(page, page, bfftest.TwoAdults())
			bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
			resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
			bfftest.ExpectRedirect(t, resp, body, "/checkout")
			readerID := h.Prov.Readers()[0].ID
			h.Get("/checkout?lang=" + lang) // the guest's choice, for the visit
			if got := h.Page("/checkout", http.StatusOK).Find("html").AttrOr("lang", ""); got != lang {
				t.Fatalf("the summary is in %q after choosing %s", got, lang)
			}
			pay := func() string { // the reader page, or "" when the summary answered at once
				resp, _ := h.Post("/checkout/pay", "/checkout", nil)
				if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/checkout/reader/") {
					return loc
				}
				return ""
			}
			follow := func(status string) { h.FollowStatus(t, status) }
			outcomes := []struct {
				name, key string
				act       func()
			}{
				{"declined", "booking.reader_declined", func() {
					status := pay()
					if err := h.Prov.PresentPaymentMethod(readerID, "4000000000000002"); err != nil {
						t.Fatal(err)
					}
					follow(status)
				}},
				{"cancelled here", "booking.reader_cancelled", func() {
					status := pay()
					h.Post(status+"/cancel", status, nil)
				}},
				{"cancelled on the reader", "booking.reader_cancelled_on_reader", func() {
					status := pay()
					if err := h.Prov.CancelOnReader(readerID); err != nil {
						t.Fatal(err)
					}
					follow(status)
				}},
				{"busy", "booking.reader_busy", func() {
					free := occupyReader(t, h, readerID)
					defer free()
					if status := pay(); status != "" {
						follow(status)
					}
				}},
				{"offline", "booking.reader_offline", func() {
					_ = h.Prov.SetReaderOffline(readerID, true)
					defer func() { _ = h.Prov.SetReaderOffline(readerID, false) }()
					if status := pay(); status != "" {
						follow(status)
					}
				}},
			}
			seen := map[string]string{}
			for _, o := range outcomes {
				o.act()
				notice := strings.Join(strings.Fields(h.Page("/checkout", http.StatusOK).Find(`[data-testid="notice-warning"]`).Text()), " ")
				want := l.T(o.key)
				if !strings.Contains(notice, want) {
					t.Errorf("%s: the summary says %q, want %q", o.name, notice, want)
				}
				if o.name != "declined" && strings.Contains(notice, l.T("booking.reader_declined")) {
					t.Errorf("%s is told as a decline: %q", o.name, notice)
				}
				if other, dup := seen[want]; dup {
					t.Errorf("%s and %s are told in the same words %q", o.name, other, want)
				}
				seen[want] = o.name
			}
		})
	}
}
