package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// TestRefundSentNotAppliedStopsTheNextChange: a refund of booking 100002 went out while its
// change was not completed (it is on Needs attention). The customer cannot start another
// change of the booking, which would give the same money back a second time, and is told why;
// once a supervisor has marked the refund resolved, the booking can be changed again.
func TestRefundSentNotAppliedStopsTheNextChange(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	ctx := context.Background()
	e, _, err := h.Srv.Ledger.Create(ctx, ledger.Entry{Kind: ledger.KindRefund, IdempotencyKey: "orphan", AmountCents: 1325, Currency: "EUR",
		CinemaID: "0001", BookingID: "BK2", BookingNumber: 100002, EditSessionID: upstream.NewUserSessionID(), ProviderPaymentID: "pi_orphan"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Srv.Ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "refund issued, edit not applied: staff review",
		func(x *ledger.Entry) { x.RefundID = "re_orphan" }); err != nil {
		t.Fatal(err)
	}
	customer := h.FreshBrowser()
	customer.Find(100002)
	resp, body := customer.Post("/booking/edit/start", "/booking/current", nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "Our staff are checking it") {
		t.Fatalf("a change while a refund is under review: %d %s", resp.StatusCode, bfftest.Squash(customer.Doc(body).Find("main").Text()))
	}
	sup := h.FreshBrowser()
	sup.SignInSupervisor()
	resp, body = sup.Post("/staff/attention/ledger/"+e.ID+"/resolve", "/staff/attention", url.Values{"note": {"refund confirmed with the customer, booking changed by hand"}})
	if resp.StatusCode >= 400 {
		t.Fatalf("resolving the refund: %d %s", resp.StatusCode, bfftest.Squash(sup.Doc(body).Find("main").Text()))
	}
	customer.StartEdit(t)
}
