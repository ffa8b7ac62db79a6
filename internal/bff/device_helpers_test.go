package bff

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/staff"
)

// The supervisor the device helpers enrol terminals with.
const (
	testSupervisor         = "sue"
	testSupervisorName     = "Sue Visor"
	testSupervisorPassword = "supervisor horse battery"
)

// addSupervisor creates (or replaces) a supervisor account directly in the store.
func (h *harness) addSupervisor(username, name, password string) {
	h.t.Helper()
	if err := h.srv.Visits.Staff.Save(context.Background(), staff.NewAccount{Username: username, Name: name, Password: password, Role: staff.Supervisor}); err != nil {
		h.t.Fatalf("add supervisor %s: %v", username, err)
	}
}

// addClerk creates (or replaces) a clerk account directly in the store.
func (h *harness) addClerk(username, name, password string) {
	h.t.Helper()
	if err := h.srv.Visits.Staff.Save(context.Background(), staff.NewAccount{Username: username, Name: name, Password: password, Role: staff.Clerk}); err != nil {
		h.t.Fatalf("add clerk %s: %v", username, err)
	}
}

// signInAs signs this client (its cookie jar: device cookie kept) in as username.
func (h *harness) signInAs(username, password string) {
	h.t.Helper()
	resp, body := h.post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {username}, "password": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("sign in as %s: %d %s", username, resp.StatusCode, body)
	}
}

// signInSupervisor creates the test supervisor and signs this client in as them.
func (h *harness) signInSupervisor() {
	h.t.Helper()
	h.addSupervisor(testSupervisor, testSupervisorName, testSupervisorPassword)
	h.signInAs(testSupervisor, testSupervisorPassword)
}

// signOutStaff ends the staff sign-in of this client.
func (h *harness) signOutStaff() {
	h.t.Helper()
	resp, body := h.post("/staff/sign-out", "/staff/sign-in", nil)
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("sign out: %d %s", resp.StatusCode, body)
	}
}

// modeLabels are the English names of the terminal modes, as /device shows them.
var modeLabels = map[device.Mode]string{device.Customer: "Customer", device.Counter: "Box-office counter", device.Kiosk: "Lobby kiosk"}

// enrol makes this client's browser a device of mode the way a person does: a supervisor signs
// in, chooses the mode on /device (naming the terminal) and signs out again. device.Customer
// takes the browser out of its mode. Whoever was signed in before is signed out afterwards.
func (h *harness) enrol(mode device.Mode) {
	h.t.Helper()
	h.enrolIn(mode, "")
}

// enrolIn is enrol with a default language for the terminal ("" for the site's).
func (h *harness) enrolIn(mode device.Mode, language string) {
	h.t.Helper()
	h.signInSupervisor()
	form := url.Values{"mode": {string(mode)}}
	if mode != device.Customer {
		form.Set("name", "Test "+string(mode))
		form.Set("language", language)
	}
	resp, body := h.post("/device", "/device", form)
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("enrol as %s: %d %s", mode, resp.StatusCode, body)
	}
	h.signOutStaff()
	_, body = h.get("/device")
	if got := h.doc(body).Find(`[data-testid="device-mode"]`).AttrOr("data-mode", ""); got != string(mode) {
		h.t.Fatalf("after enrolling as %s the device is %q", mode, got)
	}
}

// browserEnrol makes the browser of p a device of mode through the pages, without JavaScript
// needed: the supervisor signs in on /device, enrols the terminal, and signs out.
func browserEnrol(t *testing.T, p *browsertest.Page, h *harness, mode device.Mode) {
	t.Helper()
	h.addSupervisor(testSupervisor, testSupervisorName, testSupervisorPassword)
	p.Do(
		chromedp.Navigate(h.ts.URL+"/device"),
		chromedp.WaitVisible("#device-username"),
		chromedp.SendKeys("#device-username", testSupervisor),
		chromedp.SendKeys("#device-password", testSupervisorPassword),
		chromedp.Click(`[data-testid="device-signin"] button[type="submit"]`),
		chromedp.WaitVisible(`[data-testid="staff-badge"]`),
		chromedp.Navigate(h.ts.URL+"/device"),
		chromedp.WaitVisible("#mode-"+string(mode)),
		chromedp.Click("#mode-"+string(mode)),
		chromedp.SendKeys("#device-name", "Browser "+string(mode)),
		chromedp.Click(`[data-testid="device-form"] button[type="submit"]`),
		chromedp.WaitVisible(`[data-testid="notice-success"]`),
		chromedp.Click(`[data-testid="staff-badge"] button[type="submit"]`),
		chromedp.WaitNotPresent(`[data-testid="staff-badge"]`),
		chromedp.Navigate(h.ts.URL+"/device"),
		chromedp.WaitVisible(`[data-testid="device-mode"]`),
	)
	if got := strings.TrimSpace(p.Text(`[data-testid="device-mode"]`)); got != modeLabels[mode] {
		t.Fatalf("browser enrolled as %s is %q", mode, got)
	}
}
