package bfftest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"golang.org/x/crypto/bcrypt"
)

const TestSupervisorPIN = "246810"

// CounterHarness is a server with a supervisor (with a PIN) and a clerk, and this client's
// browser enrolled as a box-office counter by the supervisor.
func CounterHarness(t *testing.T) *Harness {
	t.Helper()
	h := NewHarness(t, HarnessOpts{Sandbox: true})
	h.Enrol(device.Counter)
	if err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: TestSupervisor, Name: TestSupervisorName,
		Password: TestSupervisorPassword, Role: staffaccounts.Supervisor, PIN: TestSupervisorPIN}); err != nil {
		t.Fatal(err)
	}
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	return h
}

// CounterFind looks a booking up by its number alone (staff).
func (h *Harness) CounterFind(number string) {
	h.T.Helper()
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("look-up of %s at the counter: %d %s", number, resp.StatusCode, body)
	}
}

func AuditRows(t *testing.T, h *Harness, f audit.Filter) []audit.Entry {
	t.Helper()
	rows, err := audit.New(h.DB.SQL).List(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// BuyUpToDetails walks tickets and seats and lands on the details step.
func (h *Harness) BuyUpToDetails(session string, qty url.Values) {
	h.T.Helper()
	page := "/whats-on/0001/" + session
	resp, body := h.Post(page, page, qty)
	ExpectRedirect(h.T, resp, body, "/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	ExpectRedirect(h.T, resp, body, "/checkout/details")
}

// StaffUser is the name of the staff member the server sees signed in on this client ("" for none).
func (h *Harness) StaffUser() string {
	h.T.Helper()
	_, body := h.Get("/booking")
	return strings.TrimPrefix(strings.TrimSpace(h.Doc(body).Find(`[data-testid="staff-badge"] span`).First().Text()), "Staff: ")
}

// CounterAddAdult starts a change of the booking found at the counter, adds one ticket of the
// first type, and opens the counter payment page; it returns the amount to pay.
func (h *Harness) CounterAddAdult(t *testing.T) string {
	t.Helper()
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	toPay := Text(doc, "balance")
	if resp, _ := h.Post("/booking/edit/complete", "/booking/edit", nil); resp.Header.Get("Location") != "/booking/edit/counter-payment" {
		t.Fatalf("complete at the counter went to %q", resp.Header.Get("Location"))
	}
	return toPay
}

// WalkInToReader takes a walk-in's purchase at the counter from its details page (no name or
// e-mail) through the summary's Pay to the card reader as the way to pay; it returns the
// reader's status page.
func (h *Harness) WalkInToReader(t *testing.T) string {
	t.Helper()
	h.WalkInToCounterPayment(t)
	resp, body := h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"reader"}})
	return ExpectRedirect(t, resp, body, "/checkout/reader/")
}

// WalkInToCounterPayment takes a walk-in's counter purchase from its details (no name, no
// e-mail) to the counter's payment page.
func (h *Harness) WalkInToCounterPayment(t *testing.T) {
	t.Helper()
	resp, body := h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	ExpectRedirect(t, resp, body, "/checkout/counter-payment")
}

// EnrolWithReader enrols this browser as mode with a new simulated card reader (the provider's
// test mode), as a supervisor does on /device; whoever was signed in is signed out.
func (h *Harness) EnrolWithReader(mode device.Mode) {
	h.T.Helper()
	h.SignInSupervisor()
	resp, body := h.Post("/device", "/device", url.Values{"mode": {string(mode)}, "name": {"Reader " + string(mode)},
		"reader": {"new"}, "reader_code": {"simulated-wpe"}, "cinema": {"0001"}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("enrol as %s with a reader: %d %s", mode, resp.StatusCode, h.Doc(body).Find("main").Text())
	}
	h.SignOutStaff()
}

// ReaderAsking is the sandbox's reader with a payment in progress, and that action.
func (h *Harness) ReaderAsking(t *testing.T) (payprovider.TerminalReader, payprovider.ReaderAction) {
	t.Helper()
	for _, r := range h.Prov.Readers() {
		if r.Action != nil && r.Action.Status == payprovider.ActionInProgress {
			return r, *r.Action
		}
	}
	t.Fatalf("no reader asks for a card: %+v", h.Prov.Readers())
	return payprovider.TerminalReader{}, payprovider.ReaderAction{}
}

// WaitCancelled waits up to 5 s for the provider's payment id to be canceled: a payment the
// page stopped while it was still being handed to the reader is withdrawn as that hand-over
// ends, after the page has answered.
func WaitCancelled(t *testing.T, h *Harness, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, ok := h.Prov.Get(id)
		if ok && p.Status == payprovider.StatusCancelled {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("payment %s is %q, not canceled", id, p.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// FollowStatus GETs the status page until it sends the browser elsewhere, and returns where.
func (h *Harness) FollowStatus(t *testing.T, status string) string {
	t.Helper()
	for range 50 {
		resp, _ := h.Get(status)
		if resp.StatusCode == http.StatusSeeOther {
			return resp.Header.Get("Location")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never moved on", status)
	return ""
}

// CentsText writes cents as the English pages do, without the currency: 2650 → "26.50".
func CentsText(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// SignInStaff signs a new browser in as a staff member.
func (h *Harness) SignInStaff(username, name string) {
	h.T.Helper()
	if err := h.Srv.Staff.Put(context.Background(), username, name, "correct horse battery"); err != nil {
		h.T.Fatal(err)
	}
	h.Client.Jar, _ = cookiejar.New(nil)
	resp, body := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {username}, "password": {"correct horse battery"}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("staff sign-in: %d %s", resp.StatusCode, body)
	}
}

// AddApprover makes the supervisor who approves a clerk's resolve of an item about money.
func (h *Harness) AddApprover() url.Values {
	h.T.Helper()
	if err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: TestSupervisor, Name: TestSupervisorName,
		Password: TestSupervisorPassword, Role: staffaccounts.Supervisor, PIN: TestSupervisorPIN}); err != nil {
		h.T.Fatal(err)
	}
	return url.Values{"approver": {TestSupervisor}, "pin": {TestSupervisorPIN}}
}

// GermanBrowser is the Accept-Language of a browser set to German.
var GermanBrowser = http.Header{"Accept-Language": {"de-DE,de;q=0.9,en;q=0.5"}}

// GermanPage GETs path as a German browser and checks it is a German page.
func (h *Harness) GermanPage(path string) *goquery.Document {
	h.T.Helper()
	resp, body := h.Do("GET", path, nil, GermanBrowser)
	if resp.StatusCode != http.StatusOK {
		h.T.Fatalf("GET %s in German: %d %s", path, resp.StatusCode, body)
	}
	doc := h.Doc(body)
	if lang, _ := doc.Find("html").Attr("lang"); lang != "de" {
		h.T.Fatalf("GET %s: <html lang=%q>, want de", path, lang)
	}
	return doc
}

// GermanPost submits a form as a German browser, with the CSRF token of tokenPage.
func (h *Harness) GermanPost(path, tokenPage string, form url.Values) (*http.Response, *goquery.Document) {
	h.T.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", h.CSRFToken(tokenPage))
	resp, body := h.Do("POST", path, form, GermanBrowser)
	return resp, h.Doc(body)
}

// TestPasswordHashing keeps argon2id cheap in tests (the race detector slows it down a lot);
// the harness gives it to every server.
var TestPasswordHashing = staffaccounts.Params{Memory: 64, Time: 1, Threads: 1}

const TestPassword = "correct horse battery"

// LoopbackProxies trusts X-Forwarded-For from the test client, so a test speaks as several
// client addresses.
func LoopbackProxies() []*net.IPNet {
	_, n, _ := net.ParseCIDR("127.0.0.0/8")
	return []*net.IPNet{n}
}

// Browser is another browser on the same site: its own cookies, the same server.
func (h *Harness) Browser() *Harness {
	other := *h
	jar, _ := cookiejar.New(nil)
	other.Client = &http.Client{Jar: jar, CheckRedirect: h.Client.CheckRedirect}
	return &other
}

// PostFrom submits a form as the client at ip (X-Forwarded-For through a trusted proxy).
func (h *Harness) PostFrom(ip, path, tokenPage string, form url.Values) (*http.Response, string) {
	h.T.Helper()
	form.Set("_csrf", h.CSRFToken(tokenPage))
	return h.Do("POST", path, form, http.Header{"X-Forwarded-For": {ip}})
}

// SaveAccount creates an account with testPassword.
func (h *Harness) SaveAccount(username, name string, role staffaccounts.Role, pin string) {
	h.T.Helper()
	if err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: username, Name: name, Password: TestPassword, Role: role, PIN: pin}); err != nil {
		h.T.Fatal(err)
	}
}

// SignIn signs this browser in and checks it worked.
func (h *Harness) SignIn(username string) {
	h.T.Helper()
	resp, body := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {username}, "password": {TestPassword}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("sign in %s: %d %s", username, resp.StatusCode, body)
	}
}

// AuditActions lists the audit trail's rows as "actor action detail", oldest first.
func (h *Harness) AuditActions() []string {
	h.T.Helper()
	list, err := audit.New(h.DB.SQL).List(context.Background(), audit.Filter{})
	if err != nil {
		h.T.Fatal(err)
	}
	var out []string
	for i := len(list) - 1; i >= 0; i-- {
		e := list[i]
		out = append(out, strings.TrimSpace(e.Actor+" "+e.Action+" "+e.Detail))
	}
	return out
}

// AddOldSupervisor stores a supervisor as an earlier version did: bcrypt hashes of the password
// and of a PIN of any length (which was not recorded).
func (h *Harness) AddOldSupervisor(username, name, pin string) {
	h.T.Helper()
	hash := func(secret string) string {
		b, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
		if err != nil {
			h.T.Fatal(err)
		}
		return string(b)
	}
	if _, err := h.DB.SQL.Exec(`INSERT INTO staff_accounts (username, name, password_hash, created_at, role, pin_hash) VALUES ($1, $2, $3, 0, 'supervisor', $4)`,
		username, name, hash(TestPassword), hash(pin)); err != nil {
		h.T.Fatal(err)
	}
}

// The supervisor the device helpers enrol terminals with.
const (
	TestSupervisor         = "sue"
	TestSupervisorName     = "Sue Visor"
	TestSupervisorPassword = "supervisor horse battery"
)

// AddSupervisor creates (or replaces) a supervisor account directly in the store.
func (h *Harness) AddSupervisor(username, name, password string) {
	h.T.Helper()
	if err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: username, Name: name, Password: password, Role: staffaccounts.Supervisor}); err != nil {
		h.T.Fatalf("add supervisor %s: %v", username, err)
	}
}

// AddClerk creates (or replaces) a clerk account directly in the store.
func (h *Harness) AddClerk(username, name, password string) {
	h.T.Helper()
	if err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: username, Name: name, Password: password, Role: staffaccounts.Clerk}); err != nil {
		h.T.Fatalf("add clerk %s: %v", username, err)
	}
}

// SignInAs signs this client (its cookie jar: device cookie kept) in as username.
func (h *Harness) SignInAs(username, password string) {
	h.T.Helper()
	resp, body := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {username}, "password": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("sign in as %s: %d %s", username, resp.StatusCode, body)
	}
}

// SignInSupervisor creates the test supervisor and signs this client in as them.
func (h *Harness) SignInSupervisor() {
	h.T.Helper()
	h.AddSupervisor(TestSupervisor, TestSupervisorName, TestSupervisorPassword)
	h.SignInAs(TestSupervisor, TestSupervisorPassword)
}

// SignOutStaff ends the staff sign-in of this client.
func (h *Harness) SignOutStaff() {
	h.T.Helper()
	resp, body := h.Post("/staff/sign-out", "/staff/sign-in", nil)
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("sign out: %d %s", resp.StatusCode, body)
	}
}

// ModeLabels are the English names of the terminal modes, as /device shows them.
var ModeLabels = map[device.Mode]string{device.Customer: "Customer", device.Counter: "Box-office counter", device.Kiosk: "Lobby kiosk"}

// Enrol makes this client's browser a device of mode the way a person does: a supervisor signs
// in, chooses the mode on /device (naming the terminal) and signs out again. device.Customer
// takes the browser out of its mode. Whoever was signed in before is signed out afterwards.
func (h *Harness) Enrol(mode device.Mode) {
	h.T.Helper()
	h.EnrolIn(mode, "")
}

// EnrolIn is enrol with a default language for the terminal ("" for the site's).
func (h *Harness) EnrolIn(mode device.Mode, language string) {
	h.T.Helper()
	h.SignInSupervisor()
	form := url.Values{"mode": {string(mode)}}
	if mode != device.Customer {
		form.Set("name", "Test "+string(mode))
		form.Set("language", language)
	}
	resp, body := h.Post("/device", "/device", form)
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("enrol as %s: %d %s", mode, resp.StatusCode, body)
	}
	h.SignOutStaff()
	_, body = h.Get("/device")
	if got := h.Doc(body).Find(`[data-testid="device-mode"]`).AttrOr("data-mode", ""); got != string(mode) {
		h.T.Fatalf("after enrolling as %s the device is %q", mode, got)
	}
}

// EnrolmentsOf returns every enrolment, live ones first.
func (h *Harness) EnrolmentsOf() []device.Enrolment {
	h.T.Helper()
	list, err := h.Srv.Kernel.Enrolments.List(context.Background(), 0)
	if err != nil {
		h.T.Fatal(err)
	}
	return list
}

// AuditOf returns the audit rows of action, newest first.
func (h *Harness) AuditOf(action string) []audit.Entry {
	h.T.Helper()
	all, err := audit.New(h.DB.SQL).List(context.Background(), audit.Filter{})
	if err != nil {
		h.T.Fatal(err)
	}
	var out []audit.Entry
	for _, e := range all {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// WithDeviceCookie GETs path in a browser that has nothing but the given device cookie.
func (h *Harness) WithDeviceCookie(path, value string) (*http.Response, *goquery.Document) {
	h.T.Helper()
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(h.TS.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: "device", Value: value, Path: "/"}})
	c := &http.Client{Jar: jar, CheckRedirect: h.Client.CheckRedirect}
	resp, err := c.Get(h.TS.URL + path)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	return resp, DocFrom(h.T, resp)
}

func BodyMode(d *goquery.Document) string {
	cls, _ := d.Find("body").Attr("class")
	return cls
}
