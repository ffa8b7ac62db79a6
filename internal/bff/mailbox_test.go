package bff

import (
	"net/http"
	"testing"
)

// TestSandboxMailboxOnlyHereOrStaff: the sandbox's mailbox holds every customer's mail, so it
// opens to a browser on this machine and to signed-in staff; anyone else on the network is
// asked to sign in (403) and sees no message.
func TestSandboxMailboxOnlyHereOrStaff(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	h.find(bkPaid2) // some mail to list
	stranger := h.visitor("203.0.113.9")
	for _, path := range []string{"/sandbox/mail", "/sandbox/mail/x.eml", "/sandbox/mail/x.eml/html"} {
		if resp, body := stranger.get(path); resp.StatusCode != http.StatusForbidden || stranger.doc(body).Find(`[data-testid="mail-item"]`).Length() != 0 {
			t.Errorf("%s from another machine: %d", path, resp.StatusCode)
		}
	}
	if resp, _ := h.get("/sandbox/mail"); resp.StatusCode != http.StatusOK {
		t.Errorf("the mailbox on this machine: %d", resp.StatusCode)
	}
	stranger.signInStaff("anna", "Anna Box")
	if resp, _ := stranger.get("/sandbox/mail"); resp.StatusCode != http.StatusOK {
		t.Errorf("the mailbox for staff on another machine: %d", resp.StatusCode)
	}
}
