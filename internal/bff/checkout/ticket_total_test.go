package checkout_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// euros finds the amounts in a text ("€26.50").
var euros = regexp.MustCompile(`€\d+\.\d\d`)

// TestTicketStepTotalIsTheTotalOfTheNextSteps: the ticket step's running total for two Adults
// includes the booking fees and names them, and it is the total the seat step's action bar
// and the review show for the same choice (€26.50: 2 × €12.50 and 2 × €0.75 fees); the
// script's templates and fee per ticket say the same. Before any order at the cinema has shown
// the fee, the ticket step says fees come on top rather than showing a total without them.
func TestTicketStepTotalIsTheTotalOfTheNextSteps(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	page := "/whats-on/0001/1113"
	cold := h.Page(page, http.StatusOK).Find(`[data-testid="ticket-total"]`)
	if other, _ := cold.Attr("data-total-other"); !strings.Contains(other, "plus booking fees") {
		t.Errorf("before any order the ticket step's total reads %q, want it to say booking fees come on top", other)
	}

	// A first visitor's order shows the fee per ticket.
	first := h.FreshBrowser()
	resp, body := first.ChooseQty(bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")

	// The next visitor: the ticket step for two Adults, shown again by the server beside a
	// count it cannot read (so the total is the server's own, not the script's).
	resp, body = h.Post(page, page, url.Values{"qty-0001": {"2"}, "qty-0002": {"x"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("tickets with a bad count: %d", resp.StatusCode)
	}
	total := h.Doc(body).Find(`[data-testid="ticket-total"]`)
	ticketStep := bfftest.Squash(total.Text())
	if ticketStep != "2 tickets · €26.50 incl. €1.50 booking fees" {
		t.Errorf("the ticket step's total reads %q, want the tickets with their fees, named", ticketStep)
	}
	other, _ := total.Attr("data-total-other")
	fee, _ := total.Attr("data-fee-cents")
	if other != "{n} tickets · {total} incl. {fees} booking fees" || fee != "75" {
		t.Errorf("the script's total template %q with a fee of %s cents per ticket, want the fees named and 75", other, fee)
	}

	resp, body = h.ChooseQty(bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	seatStep := bfftest.Squash(h.Page("/checkout/seats", http.StatusOK).Find(`.seat-actions-price`).Text())
	h.BuyAfterSeats()
	review := bfftest.Squash(h.Page("/checkout", http.StatusOK).Find(`[data-testid="total"]`).Text())

	amounts := []string{euros.FindString(ticketStep), euros.FindString(seatStep), euros.FindString(review)}
	if amounts[0] == "" || amounts[0] != amounts[1] || amounts[1] != amounts[2] {
		t.Errorf("the totals differ: ticket step %q, seat step %q, review %q", ticketStep, seatStep, review)
	}
}

// TestTicketStepTotalAfterARestartAndOnAnotherReplica: the fee per ticket one site learned
// from an order is known to a second site over the same database before that one opened any
// order: the site started again (SQLite) or another replica (PostgreSQL). Its ticket step's
// total for two Adults includes the fees and names them, and it is the total its seat step and
// review then show for the same choice.
func TestTicketStepTotalAfterARestartAndOnAnotherReplica(t *testing.T) {
	cases := []struct {
		name string
		opts func(t *testing.T) bfftest.HarnessOpts
	}{
		{"restart on SQLite", func(t *testing.T) bfftest.HarnessOpts {
			return bfftest.HarnessOpts{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "site.db")}
		}},
		{"second replica on PostgreSQL", func(t *testing.T) bfftest.HarnessOpts {
			return bfftest.HarnessOpts{DatabaseURL: testenv.PostgresURL(t), SessionStore: storage.SessionsPostgres}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.opts(t)
			o.Sandbox = true
			first := bfftest.NewHarness(t, o)
			resp, body := first.ChooseQty(bfftest.TwoAdults()) // the order shows the fee
			bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")

			// The second site: the same database and the same ticketing system, nothing in memory.
			o.Sandbox, o.UpstreamURL = false, first.UpstreamURL
			second := bfftest.NewHarness(t, o)
			ticketStep, seatStep, review := totalsForTwoAdults(t, second)
			if ticketStep != "2 tickets · €26.50 incl. €1.50 booking fees" {
				t.Errorf("the second site's ticket step total reads %q, want the tickets with their fees, named", ticketStep)
			}
			amounts := []string{euros.FindString(ticketStep), euros.FindString(seatStep), euros.FindString(review)}
			if amounts[0] == "" || amounts[0] != amounts[1] || amounts[1] != amounts[2] {
				t.Errorf("the totals differ: ticket step %q, seat step %q, review %q", ticketStep, seatStep, review)
			}
		})
	}
}

// totalsForTwoAdults are the totals site h shows for two Adults at the ticket step (shown again
// by the server beside a count it cannot read, so the total is the server's own, not the
// script's; before h opens an order), at the seat step and at the review.
func totalsForTwoAdults(t *testing.T, h *bfftest.Harness) (ticketStep, seatStep, review string) {
	t.Helper()
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, url.Values{"qty-0001": {"2"}, "qty-0002": {"x"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("tickets with a bad count: %d", resp.StatusCode)
	}
	total := h.Doc(body).Find(`[data-testid="ticket-total"]`)
	if fee, _ := total.Attr("data-fee-cents"); fee != "75" {
		t.Errorf("the script's fee per ticket is %q cents, want 75", fee)
	}
	ticketStep = bfftest.Squash(total.Text())
	resp, body = h.ChooseQty(bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	seatStep = bfftest.Squash(h.Page("/checkout/seats", http.StatusOK).Find(`.seat-actions-price`).Text())
	h.BuyAfterSeats()
	review = bfftest.Squash(h.Page("/checkout", http.StatusOK).Find(`[data-testid="total"]`).Text())
	return ticketStep, seatStep, review
}
