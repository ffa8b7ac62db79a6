package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// tapOnStandaloneReader takes cents on a card held to a reader the site does not drive (a
// standalone terminal of the same provider account), with metadata as that terminal set it,
// and returns the payment intent and its charge, as the receipt prints them.
func tapOnStandaloneReader(t *testing.T, h *bfftest.Harness, cents int64, metadata map[string]string) (pi, ch string) {
	t.Helper()
	reader := h.Prov.SeedReader("", "Standalone terminal")
	p, err := h.Srv.Readers.StartReaderPayment(context.Background(), upstream.ReaderPaymentRequest{ReaderID: reader.ID, AmountCents: cents,
		Currency: "EUR", Metadata: metadata})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	intent, ok := h.Prov.PaymentIntent(p.ID)
	if !ok || intent.LatestChargeID == "" {
		t.Fatalf("the standalone terminal's payment: %+v", intent)
	}
	return intent.ID, intent.LatestChargeID
}

// TestCounterReferenceIsCheckedWithTheProvider: at the counter, a supervisor's typed terminal
// reference that names a payment of the provider is refused in words, and nothing is
// recorded, when it is another booking's online payment (its charge or its intent), another
// booking's card-present payment, a card-present payment of another amount, or a charge the
// provider does not have; a card-present payment of the amount taken that belongs to nobody
// is recorded under its payment intent, however it was typed.
func TestCounterReferenceIsCheckedWithTheProvider(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword) // a standalone terminal's reference: supervisors
	h.CounterFind("100017")
	h.CounterAddAdult(t)
	due, _ := strconv.ParseInt(h.Page("/booking/edit/counter-payment", http.StatusOK).Find(`[data-due-cents]`).AttrOr("data-due-cents", ""), 10, 64)
	if due <= 0 {
		t.Fatal("no amount due on the counter payment page")
	}
	online, ok := h.Prov.PaymentIntent("pi_seed100003")
	if !ok || online.LatestChargeID == "" {
		t.Fatalf("100003's online payment at the provider: %+v", online)
	}
	_, otherBooking := tapOnStandaloneReader(t, h, due, map[string]string{"booking": upstream.BookingRef("0001", 100003)})
	_, otherAmount := tapOnStandaloneReader(t, h, due+100, nil)
	refused := []struct{ ref, want string }{
		{online.LatestChargeID, "reference of a payment made online"},
		{"pi_seed100003", "reference of a payment made online"},
		{otherBooking, "already belongs to another booking or payment"},
		{otherAmount, "not the €" + bfftest.CentsText(due) + " to take now"},
		{"ch_3NoSuchChargeAnywhere", "has no payment ch_3NoSuchChargeAnywhere"},
	}
	for _, c := range refused {
		resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {c.ref}})
		doc := h.Doc(body)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(bfftest.Squash(bfftest.Text(doc, "reference-error")), c.want) {
			t.Errorf("%s as the terminal reference: %d, next to the field %q, want %q", c.ref, resp.StatusCode, bfftest.Text(doc, "reference-error"), c.want)
		}
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 0 {
		t.Fatalf("a refused reference was recorded as paid: %+v", es)
	}
	if n := h.Srv.BoxOffice; n != nil {
		if list, _ := n.ForBooking(context.Background(), "0001", 100017); len(list) != 0 {
			t.Fatalf("a refused reference is in the box office's register: %+v", list)
		}
	}

	mine, mineCharge := tapOnStandaloneReader(t, h, due, nil)
	resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {mineCharge}})
	// On a busy machine the change is still being saved when the request ends: the answer is
	// its status page, or a redirect to it, which the clerk's browser follows to the booking.
	to := ""
	if resp.StatusCode == http.StatusOK {
		to = h.Doc(body).Find(`[data-testid="payment-status"] [hx-get]`).AttrOr("hx-get", "")
	} else {
		to = bfftest.ExpectRedirect(t, resp, body, "/booking/")
	}
	if strings.HasPrefix(to, "/booking/edit/status/") {
		to = h.FollowStatus(t, to)
	}
	doc := h.Page(to, http.StatusOK)
	if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "card (box office terminal)") {
		t.Fatalf("the counter's own card payment was not taken: %s", doc.Find("main").Text())
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].ProviderReference != mine || es[0].AmountCents != due || es[0].State != ledger.StateApplied {
		t.Fatalf("the payment recorded: %+v, want one applied under %s", es, mine)
	}
}

// TestCounterSaleReferenceIsCheckedWithTheProvider: selling at the counter, another booking's
// online charge and another booking's card-present payment as the terminal reference are
// refused in words; no booking is made and nothing is recorded in the box office's register.
func TestCounterSaleReferenceIsCheckedWithTheProvider(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	resp, body := h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/counter-payment")
	due, _ := strconv.ParseInt(h.Page("/checkout/counter-payment", http.StatusOK).Find(`[data-due-cents]`).AttrOr("data-due-cents", ""), 10, 64)
	online, _ := h.Prov.PaymentIntent("pi_seed100001")
	_, tapped := tapOnStandaloneReader(t, h, due, map[string]string{"booking": upstream.BookingRef("0001", 100003)})
	for ref, want := range map[string]string{online.LatestChargeID: "reference of a payment made online", tapped: "already belongs to another booking"} {
		resp, body := h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"terminal"}, "reference": {ref}})
		if said := bfftest.Squash(bfftest.Text(h.Doc(body), "reference-error")); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(said, want) {
			t.Errorf("%s as the sale's terminal reference: %d %q, want %q", ref, resp.StatusCode, said, want)
		}
	}
	if n := h.SB.Calls("CompleteOrder"); n != 0 {
		t.Fatalf("the order was completed %d times with a refused reference", n)
	}
	var n int
	if err := h.DB.SQL.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM box_office_payments`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the box office's register holds %d payments (%v)", n, err)
	}
}
