package bff_test

import (
	"net/http"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestSandboxMailboxOnlyHereOrStaff: the sandbox's mailbox holds every customer's mail, so it
// opens to a browser on this machine and to signed-in staff; anyone else on the network is
// asked to sign in (403) and sees no message.
func TestSandboxMailboxOnlyHereOrStaff(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	h.Find(bfftest.BkPaid2) // some mail to list
	stranger := h.Visitor("203.0.113.9")
	for _, path := range []string{"/sandbox/mail", "/sandbox/mail/x.eml", "/sandbox/mail/x.eml/html"} {
		if resp, body := stranger.Get(path); resp.StatusCode != http.StatusForbidden || stranger.Doc(body).Find(`[data-testid="mail-item"]`).Length() != 0 {
			t.Errorf("%s from another machine: %d", path, resp.StatusCode)
		}
	}
	if resp, _ := h.Get("/sandbox/mail"); resp.StatusCode != http.StatusOK {
		t.Errorf("the mailbox on this machine: %d", resp.StatusCode)
	}
	stranger.SignInStaff("anna", "Anna Box")
	if resp, _ := stranger.Get("/sandbox/mail"); resp.StatusCode != http.StatusOK {
		t.Errorf("the mailbox for staff on another machine: %d", resp.StatusCode)
	}
}
