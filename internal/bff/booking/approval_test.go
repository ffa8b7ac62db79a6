package booking_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
)

// approvalHarness is a server with the supervisor sue (PIN testSupervisorPIN) and the clerk
// carl, the approval limit at 5,00, and this client's browser in mode (device.Customer: an
// ordinary browser, never enrolled).
func approvalHarness(t *testing.T, mode device.Mode) *bfftest.Harness {
	t.Helper()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, TrustedProxies: bfftest.LoopbackProxies()})
	if mode != device.Customer {
		h.Enrol(mode)
	}
	if err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: bfftest.TestSupervisor, Name: bfftest.TestSupervisorName,
		Password: bfftest.TestSupervisorPassword, Role: staffaccounts.Supervisor, PIN: bfftest.TestSupervisorPIN}); err != nil {
		t.Fatal(err)
	}
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	h.Srv.Settings.RefundApprovalAbove = bfftest.ApprovalLimit
	return h
}

// refundsMade counts the refunds at the provider and the refund entries in the ledger.
func refundsMade(t *testing.T, h *bfftest.Harness) (provider, ledgerRefunds int) {
	t.Helper()
	list, ok := h.Prov.Refunds(bfftest.ApprovalPayRef)
	if !ok {
		t.Fatalf("the provider has no payment %s", bfftest.ApprovalPayRef)
	}
	es, _ := bfftest.Entries(t, h)
	for _, e := range es {
		if e.Kind == ledger.KindRefund {
			ledgerRefunds++
		}
	}
	return len(list), ledgerRefunds
}

// TestClerkRefundAboveTheLimitNeedsApprovalOnAnyDevice: a clerk signed in on a browser that is
// not an enrolled counter (an ordinary browser, a kiosk) removes tickets worth more than the
// limit: completing shows the approval form (a plain form, no JavaScript needed) and no refund
// is made, neither at the provider nor in the ledger, until a supervisor's username and PIN
// are given; then it goes through, and the approval is in the audit trail.
func TestClerkRefundAboveTheLimitNeedsApprovalOnAnyDevice(t *testing.T) {
	for _, mode := range []device.Mode{device.Customer, device.Kiosk, device.Counter} {
		t.Run(string(mode), func(t *testing.T) {
			h := approvalHarness(t, mode)
			h.SignInAs("carl", "clerk horse battery")
			refund := h.RemoveOneTicket()

			resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
			form := h.Doc(body).Find(`form[data-testid="approval-form"]`)
			if resp.StatusCode != http.StatusOK || form.Length() != 1 {
				t.Fatalf("completing a refund of %s as a clerk: %d, %d approval forms: %s", refund, resp.StatusCode, form.Length(),
					strings.TrimSpace(h.Doc(body).Find("main").Text()))
			}
			if form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != "/booking/edit/complete" ||
				form.Find(`input[name="approver"]`).Length() != 1 || form.Find(`input[name="pin"][type="password"]`).Length() != 1 ||
				form.Find(`textarea[name="reason"]`).Length() != 1 || form.Find(`button[type="submit"]`).Length() != 1 {
				html, _ := goquery.OuterHtml(form)
				t.Fatalf("the approval form cannot be sent without JavaScript: %s", html)
			}
			if p, l := refundsMade(t, h); p != 0 || l != 0 {
				t.Fatalf("before approval: %d refunds at the provider, %d in the ledger", p, l)
			}
			// A wrong PIN refuses and refunds nothing.
			if resp, _ := h.Post("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {bfftest.TestSupervisor},
				"pin": {"000000"}, "reason": {"Customer cannot come"}}); resp.StatusCode != http.StatusForbidden {
				t.Fatalf("wrong PIN: %d", resp.StatusCode)
			}
			if p, l := refundsMade(t, h); p != 0 || l != 0 {
				t.Fatalf("after a refused approval: %d refunds at the provider, %d in the ledger", p, l)
			}

			_, doc := h.Submit("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {bfftest.TestSupervisor},
				"pin": {bfftest.TestSupervisorPIN}, "reason": {"Customer cannot come"}})
			if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Refunded "+refund) {
				t.Fatalf("after approval: %q", strings.TrimSpace(doc.Find("main").Text()))
			}
			if p, l := refundsMade(t, h); p != 1 || l != 1 {
				t.Fatalf("after approval: %d refunds at the provider, %d in the ledger, want 1 and 1", p, l)
			}
			if h.StaffUser() != "Carl Clerk" {
				t.Fatalf("the clerk is no longer signed in: %q", h.StaffUser())
			}
			var approved, refused int
			for _, r := range bfftest.AuditRows(t, h, audit.Filter{BookingNumber: 100003}) {
				switch {
				case r.Action == audit.ActionApproval && r.Actor == bfftest.TestSupervisor && strings.Contains(r.Detail, "carl"):
					approved++
				case r.Action == audit.ActionApprovalRefused && r.Actor == "carl":
					refused++
				}
			}
			if approved != 1 || refused != 1 {
				t.Fatalf("audit trail: %d approvals, %d refusals, want 1 and 1", approved, refused)
			}
		})
	}
}

// TestSupervisorsOwnRefundNeedsNoApproval: a supervisor's own refund above the limit goes
// through at once, on a counter and in an ordinary browser.
func TestSupervisorsOwnRefundNeedsNoApproval(t *testing.T) {
	for _, mode := range []device.Mode{device.Customer, device.Counter} {
		t.Run(string(mode), func(t *testing.T) {
			h := approvalHarness(t, mode)
			h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
			refund := h.RemoveOneTicket()
			_, doc := h.Submit("/booking/edit/complete", "/booking/edit", nil)
			if doc.Find(`[data-testid="approval-form"]`).Length() != 0 {
				t.Fatal("a supervisor is asked for approval of their own refund")
			}
			if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Refunded "+refund) {
				t.Fatalf("a supervisor's refund: %q", strings.TrimSpace(doc.Find("main").Text()))
			}
			if p, l := refundsMade(t, h); p != 1 || l != 1 {
				t.Fatalf("%d refunds at the provider, %d in the ledger, want 1 and 1", p, l)
			}
		})
	}
}

// TestApprovalRefusalSaysOnlyRefused: an unknown username, a clerk's username and a wrong PIN
// all read "Approval refused." and nothing else, with the same status, in English and German.
func TestApprovalRefusalSaysOnlyRefused(t *testing.T) {
	h := approvalHarness(t, device.Counter)
	h.SignInAs("carl", "clerk horse battery")
	h.RemoveOneTicket()
	for _, lang := range []struct {
		name   string
		header http.Header
		want   string
	}{{"English", nil, "Approval refused."}, {"German", bfftest.GermanBrowser, "Freigabe verweigert."}} {
		for _, tc := range []struct{ name, approver, pin string }{
			{"unknown username", "nobody", "123456"},
			{"a clerk's username", "carl", "123456"},
			{"wrong PIN", bfftest.TestSupervisor, "000000"},
		} {
			resp, body := h.Do("POST", "/booking/edit/complete", url.Values{"_csrf": {h.CSRFToken("/booking/edit")}, "approval": {"1"},
				"approver": {tc.approver}, "pin": {tc.pin}, "reason": {"Customer cannot come"}}, lang.header)
			notices := h.Doc(body).Find(`[data-testid="approval"] .notice`)
			notices.Find(".notice-icon, .visually-hidden").Remove() // the icon and "Problem:" for screen readers
			if got := strings.Join(strings.Fields(notices.Text()), " "); resp.StatusCode != http.StatusForbidden || got != lang.want {
				t.Errorf("%s, %s: %d %q, want 403 %q", lang.name, tc.name, resp.StatusCode, got, lang.want)
			}
		}
	}
	if p, l := refundsMade(t, h); p != 0 || l != 0 {
		t.Fatalf("refused approvals made %d refunds at the provider, %d in the ledger", p, l)
	}
}

// TestWrongApprovalPINsDoNotLockSignIn: 20 wrong approval PINs for the supervisor boss do not
// stop boss from signing in; the PIN itself is locked (the form says to try later), and a
// supervisor's Unlock lifts that lock too.
func TestWrongApprovalPINsDoNotLockSignIn(t *testing.T) {
	h := approvalHarness(t, device.Counter)
	h.SaveAccount("boss", "The Boss", staffaccounts.Supervisor, "135790")
	h.SignInAs("carl", "clerk horse battery")
	h.RemoveOneTicket()
	var body string
	for i := range 20 {
		_, body = h.Post("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {"boss"},
			"pin": {fmt.Sprintf("%06d", i)}, "reason": {"Customer cannot come"}})
	}
	if got := bfftest.Text(h.Doc(body), "approval"); !strings.Contains(got, "please try again later") {
		t.Fatalf("the 20th wrong PIN says %q", got)
	}
	boss := h.Browser()
	boss.SignIn("boss")
	if boss.StaffUser() != "The Boss" {
		t.Fatalf("boss is not signed in after 20 wrong PINs: %q", boss.StaffUser())
	}
	doc := boss.Page("/staff/accounts", http.StatusOK)
	if got := strings.TrimSpace(doc.Find(`[data-testid="account"][data-username="boss"] [data-testid="account-state"]`).Text()); got != "Locked" {
		t.Fatalf("boss's locked PIN shows as %q on the accounts page", got)
	}
	boss.Submit("/staff/accounts/boss/unlock", "/staff/accounts", nil)
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {"boss"},
		"pin": {"135790"}, "reason": {"Customer cannot come"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Refunded") {
		t.Fatalf("boss's PIN after the unlock: %q", strings.TrimSpace(doc.Find("main").Text()))
	}
}
