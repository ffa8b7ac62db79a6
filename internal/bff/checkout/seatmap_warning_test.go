package checkout_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestSeatPagesShowNoWarningWhileSeatsEqualTickets: the seat pages of the purchase
// (1113, two adults) and of a booking's change (100004, three tickets) open with as many seats
// ticked as there are tickets, and then show no warning: the limit hint is hidden and there is
// no warning or error notice. Each seating area that can be chosen carries its price for the
// answer to a tap. More seats than tickets is still a warning (TestBuySeatsRefusesMoreSeatsThanTickets).
func TestSeatPagesShowNoWarningWhileSeatsEqualTickets(t *testing.T) {
	cases := []struct {
		name    string
		open    func(t *testing.T, h *bfftest.Harness) *goquery.Document
		tickets int
		price   *regexp.Regexp
	}{
		{"buy 1113", func(t *testing.T, h *bfftest.Harness) *goquery.Document {
			page := "/whats-on/0001/1113"
			resp, body := h.Post(page, page, bfftest.TwoAdults())
			bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
			return h.Page("/checkout/seats", http.StatusOK)
		}, 2, regexp.MustCompile(`^€12\.50$`)},
		{"change 100004", func(t *testing.T, h *bfftest.Harness) *goquery.Document {
			h.Find(100004)
			h.StartEdit(t)
			return h.Page("/booking/edit/seats", http.StatusOK)
		}, 3, regexp.MustCompile(`^€\d+\.\d\d(–€\d+\.\d\d)?$`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			doc := tc.open(t, h)
			m := doc.Find(`[data-testid="seatmap"]`)
			if n := m.Find(`input[name="seat"][checked]`).Length(); n != tc.tickets || m.AttrOr("data-max", "") != strconv.Itoa(tc.tickets) {
				t.Fatalf("%d seats ticked, data-max %q; want %d", n, m.AttrOr("data-max", ""), tc.tickets)
			}
			if _, hidden := m.Find(`[data-testid="seat-limit"]`).Attr("hidden"); !hidden {
				t.Errorf("the limit hint shows with as many seats as tickets: %q", m.Find(`[data-testid="seat-limit"]`).Text())
			}
			// (the countdown's own notices wait hidden until the time runs low)
			w := doc.Find(`.notice-warning, .notice-error, [role="alert"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
				return s.Closest("[hidden]").Length() == 0
			})
			if w.Length() != 0 {
				t.Errorf("a warning or error on the page: %q", strings.Join(strings.Fields(w.Text()), " "))
			}
			if m.HasClass("seatmap-over") {
				t.Error("the map is marked over the limit")
			}
			priced := 0
			m.Find(`fieldset.seatmap-area[data-price]`).Each(func(_ int, a *goquery.Selection) {
				priced++
				if p := a.AttrOr("data-price", ""); !tc.price.MatchString(p) {
					t.Errorf("%s: price %q", a.Find("legend").Text(), p)
				}
			})
			if priced == 0 {
				t.Error("no seating area carries a price for the tap's answer")
			}
			if got := m.AttrOr("data-seat-tap", ""); got != "Row {row} · Seat {seat}" {
				t.Errorf("tap template %q", got)
			}
		})
	}
}
