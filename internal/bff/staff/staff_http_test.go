package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

func TestStaffLooksUpByNumberAlone(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	if err := h.Srv.Staff.Put(context.Background(), "anna", "Anna Box", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	// A customer cannot look up by number alone.
	resp, _ := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100005"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("number alone without sign-in: %d", resp.StatusCode)
	}
	resp, body := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {"wrong password"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong username or password.") {
		t.Fatalf("wrong password: %d %s", resp.StatusCode, body)
	}
	before := h.Cookie("session")
	resp, _ = h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {"correct horse battery"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", resp.StatusCode)
	}
	if after := h.Cookie("session"); before != nil && after.Value == before.Value {
		t.Fatal("session token not renewed on sign-in")
	}
	doc := h.Page("/booking", http.StatusOK)
	if doc.Find(`input[name="email"]`).Length() != 0 || !strings.Contains(bfftest.Text(doc, "staff-badge"), "Anna Box") {
		t.Fatal("staff find form still asks for the e-mail, or no staff badge")
	}
	doc = h.Find(100005)
	if got := doc.Find("h1").Text(); got != "Booking 100005" {
		t.Fatalf("staff look-up: %q", got)
	}
	_, doc = h.Submit("/staff/sign-out", "/booking/current", nil)
	if doc.Find(`[data-testid="staff-badge"]`).Length() != 0 {
		t.Fatal("still signed in after signing out")
	}
	if resp, _ := h.Get("/booking/current"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("booking still bound after sign-out: %d", resp.StatusCode)
	}
}
