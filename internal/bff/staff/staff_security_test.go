package staff_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func countPrefix(rows []string, prefix string) int {
	n := 0
	for _, r := range rows {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// TestStaffSignInLocksPerClient: the fifth wrong password from one client locks the account
// for that client for 15 minutes, even against the right password; failures spread over other
// clients lock nothing, and another client signs in at once (the lock is the client's own). A
// supervisor sees the lock on /staff/accounts and unlocks it.
func TestStaffSignInLocksPerClient(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, TrustedProxies: bfftest.LoopbackProxies()})
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	h.SaveAccount("sue", "Sue Visor", staffaccounts.Supervisor, "246810")
	wrong := url.Values{"username": {"anna"}, "password": {"wrong password"}}
	for i := range 4 { // four clients, one failure each: nobody is locked
		if resp, _ := h.PostFrom(fmt.Sprintf("198.51.100.%d", i+10), "/staff/sign-in", "/staff/sign-in", wrong); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure from client %d: %d", i+1, resp.StatusCode)
		}
	}
	for i := range 5 {
		resp, body := h.PostFrom("198.51.100.1", "/staff/sign-in", "/staff/sign-in", wrong)
		want := http.StatusUnauthorized
		if i == 4 {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want {
			t.Fatalf("failure %d: %d, want %d: %s", i+1, resp.StatusCode, want, body)
		}
	}
	resp, body := h.PostFrom("198.51.100.1", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}})
	doc := h.Doc(body)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(bfftest.Text(doc, "signin-error"), "Too many failed sign-ins for this account from this device. Please try again in 15 minutes") {
		t.Fatalf("right password while locked: %d %q", resp.StatusCode, bfftest.Text(doc, "signin-error"))
	}
	rows := h.AuditActions()
	if n := countPrefix(rows, "anna sign-in-failed"); n != 10 {
		t.Fatalf("%d sign-in-failed rows for anna, want 10: %q", n, rows)
	}
	elsewhere := h.Browser()
	if resp, _ := elsewhere.PostFrom("203.0.113.9", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("anna from another client while the first is locked: %d", resp.StatusCode)
	}

	sup := h.Browser()
	sup.SignIn("sue")
	doc = sup.Page("/staff/accounts", http.StatusOK)
	row := doc.Find(`[data-testid="account"][data-username="anna"]`)
	if got := strings.TrimSpace(row.Find(`[data-testid="account-state"]`).Text()); got != "Locked" || row.Find(`[data-testid="unlock-form"]`).Length() != 1 {
		t.Fatalf("anna's row: state %q, unlock forms %d", got, row.Find(`[data-testid="unlock-form"]`).Length())
	}
	if got := strings.TrimSpace(doc.Find(`[data-testid="account"][data-username="sue"] [data-testid="account-role"]`).Text()); got != "Supervisor" {
		t.Fatalf("sue's role %q", got)
	}
	_, doc = sup.Submit("/staff/accounts/anna/unlock", "/staff/accounts", nil)
	if !strings.Contains(doc.Text(), "Anna Box can sign in again.") {
		t.Fatalf("no confirmation after unlock: %s", doc.Text())
	}
	if resp, body := h.PostFrom("198.51.100.1", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("anna after the unlock: %d %s", resp.StatusCode, body)
	}
	if rows := h.AuditActions(); countPrefix(rows, "sue account-unlock account anna") != 1 || countPrefix(rows, "anna sign-in Clerk") != 2 {
		t.Fatalf("audit rows: %q", rows)
	}
}

// TestStaffSignInCannotLockOthersOut: 20 wrong passwords for the supervisor boss
// from one client do not keep boss out: boss signs in from another client at once.
func TestStaffSignInCannotLockOthersOut(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, TrustedProxies: bfftest.LoopbackProxies()})
	h.SaveAccount("boss", "The Boss", staffaccounts.Supervisor, bfftest.TestSupervisorPIN)
	attacker := h.Browser()
	for i := range 20 {
		resp, _ := attacker.PostFrom("203.0.113.66", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"boss"}, "password": {fmt.Sprintf("guess number %d", i)}})
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("guess %d: %d", i+1, resp.StatusCode)
		}
	}
	resp, body := h.PostFrom("198.51.100.20", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"boss"}, "password": {bfftest.TestPassword}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("boss from another client after 20 guesses elsewhere: %d %s", resp.StatusCode, bfftest.Text(h.Doc(body), "signin-error"))
	}
	if h.StaffUser() != "The Boss" {
		t.Fatalf("signed in as %q", h.StaffUser())
	}
	// The guessing client stays locked out of boss.
	if resp, _ := attacker.PostFrom("203.0.113.66", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"boss"}, "password": {bfftest.TestPassword}}); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the guessing client with the right password: %d", resp.StatusCode)
	}
}

// TestStaffSignInPerClientLimit: failed sign-ins from one client address are limited across
// usernames (no account lock-out involved); another address is not affected.
func TestStaffSignInPerClientLimit(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, TrustedProxies: bfftest.LoopbackProxies()})
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	for i := range staff.SignInPerClient.Burst {
		resp, _ := h.PostFrom("198.51.100.7", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {fmt.Sprintf("guess%d", i)}, "password": {"wrong password"}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, resp.StatusCode)
		}
	}
	resp, body := h.PostFrom("198.51.100.7", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}})
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Too many sign-in attempts from this device") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("11th attempt from one address: %d %s", resp.StatusCode, body)
	}
	resp, _ = h.PostFrom("198.51.100.8", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("another address is limited too: %d", resp.StatusCode)
	}
}

// TestStaffSignInLimitPerIPv6Prefix: an IPv6 client is limited by its /64, so new addresses
// from the same /64 get no new allowance; the next /64 is another client.
func TestStaffSignInLimitPerIPv6Prefix(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, TrustedProxies: bfftest.LoopbackProxies()})
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	for i := range staff.SignInPerClient.Burst {
		ip := fmt.Sprintf("2001:db8:1:2::%x", i+1)
		if resp, _ := h.PostFrom(ip, "/staff/sign-in", "/staff/sign-in", url.Values{"username": {fmt.Sprintf("guess%d", i)}, "password": {"wrong password"}}); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d from %s: %d", i+1, ip, resp.StatusCode)
		}
	}
	if resp, _ := h.PostFrom("2001:db8:1:2:ffff::1", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}}); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a new address in the same /64 got a new allowance: %d", resp.StatusCode)
	}
	if resp, _ := h.PostFrom("2001:db8:1:3::1", "/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("another /64 is limited too: %d", resp.StatusCode)
	}
}

// TestStaffIdleTimeout: a staff sign-in ends after -staff-idle without a request, although the
// visit's own idle timeout is longer; the next page leads to sign-in and says why.
func TestStaffIdleTimeout(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Srv.Kernel.Cfg.StaffIdle = 600 * time.Millisecond
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	h.SignIn("anna")
	for range 3 { // activity keeps it alive
		time.Sleep(250 * time.Millisecond)
		doc := h.Page("/booking", http.StatusOK)
		if doc.Find(`[data-testid="staff-badge"]`).Length() != 1 {
			t.Fatal("signed out while active")
		}
	}
	h.Find(100005) // a booking bound by number alone
	time.Sleep(800 * time.Millisecond)
	resp, _ := h.Get("/booking/current")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/staff/sign-in?next="+url.QueryEscape("/booking/current") {
		t.Fatalf("after the idle time: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc := h.Page("/staff/sign-in?next=%2Fbooking%2Fcurrent", http.StatusOK)
	if got := bfftest.Text(doc, "signin-notice"); !strings.Contains(got, "ended after 1 second without activity") {
		t.Fatalf("sign-in page says %q", got)
	}
	if doc.Find(`input[name="next"][value="/booking/current"]`).Length() != 1 {
		t.Fatal("the sign-in form does not come back to the page")
	}
	if resp, _ := h.Get("/booking/current"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the booking found by number alone is still bound: %d", resp.StatusCode)
	}
	rows := h.AuditActions()
	if countPrefix(rows, "anna sign-out sign-in ended after") != 1 {
		t.Fatalf("audit rows: %q", rows)
	}
	// Signing in again comes back to the page asked for.
	resp, _ = h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}, "next": {"/staff/attention"}})
	if loc := resp.Header.Get("Location"); loc != "/staff/attention" {
		t.Fatalf("after sign-in: %q", loc)
	}
	resp, _ = h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}, "next": {"//evil.example/x"}})
	if loc := resp.Header.Get("Location"); loc != "/booking" {
		t.Fatalf("sign-in followed an off-site next: %q", loc)
	}
}

// TestSupervisorEndsAllSessions: "End all sessions" signs the account out in every browser at
// its next request; clerks cannot see the accounts page.
func TestSupervisorEndsAllSessions(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	h.SaveAccount("sue", "Sue Visor", staffaccounts.Supervisor, "")
	h.SignIn("anna")
	second := h.Browser()
	second.SignIn("anna")
	if resp, body := h.Get("/staff/accounts"); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "not a supervisor") {
		t.Fatalf("a clerk on /staff/accounts: %d", resp.StatusCode)
	}
	if resp, _ := h.Post("/staff/accounts/sue/end-sessions", "/booking", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a clerk ends sessions: %d", resp.StatusCode)
	}
	anon := h.Browser()
	if resp, body := anon.Get("/staff/accounts"); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "/staff/sign-in?next=%2Fstaff%2Faccounts") {
		t.Fatalf("a customer on /staff/accounts: %d", resp.StatusCode)
	}

	sup := h.Browser()
	sup.SignIn("sue")
	_, doc := sup.Submit("/staff/accounts/anna/end-sessions", "/staff/accounts", nil)
	if !strings.Contains(doc.Text(), "Every sign-in of Anna Box has ended.") {
		t.Fatalf("no confirmation: %s", doc.Text())
	}
	for i, b := range []*bfftest.Harness{h, second} {
		resp, _ := b.Get("/booking")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/staff/sign-in") {
			t.Fatalf("browser %d still signed in: %d", i+1, resp.StatusCode)
		}
		doc := b.Page("/staff/sign-in", http.StatusOK)
		if !strings.Contains(bfftest.Text(doc, "signin-notice"), "because a supervisor ended it") {
			t.Fatalf("browser %d: no reason given", i+1)
		}
	}
	// The supervisor is still signed in, and a new sign-in of anna works.
	sup.Page("/staff/accounts", http.StatusOK)
	h.SignIn("anna")
	h.Page("/booking", http.StatusOK)
	if rows := h.AuditActions(); countPrefix(rows, "sue sessions-ended account anna") != 1 || countPrefix(rows, "anna sign-out sign-in ended because a supervisor ended it") != 2 {
		t.Fatalf("audit rows: %q", rows)
	}
	// A disabled account's sign-in ends too.
	if _, err := h.Srv.Staff.Disable(context.Background(), "anna"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := h.Get("/booking"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disabled account still signed in: %d", resp.StatusCode)
	}
}

// TestSignOutEndsTheVisit: signing out destroys the server session, so the old session cookie
// no longer carries the sign-in (or anything else), and it is in the audit trail.
func TestSignOutEndsTheVisit(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	h.SignIn("anna")
	h.Find(100005)
	old := h.Cookie("session")
	if old == nil {
		t.Fatal("no session cookie")
	}
	h.Submit("/staff/sign-out", "/booking/current", nil)
	replay := h.Browser()
	u, _ := url.Parse(h.TS.URL)
	replay.Client.Jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: old.Value, Path: "/"}})
	if resp, _ := replay.Get("/booking/current"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the old session still has the booking: %d", resp.StatusCode)
	}
	if doc := replay.Page("/booking", http.StatusOK); doc.Find(`[data-testid="staff-badge"]`).Length() != 0 {
		t.Fatal("the old session is still signed in")
	}
	rows := h.AuditActions()
	want := []string{"anna sign-in Clerk", "anna look-up by number", "anna sign-out"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("audit rows %q, want %q", rows, want)
	}
}

// TestLookUpLimitsArePerClient: ten wrong e-mails for 100002 from one client do not
// stop another client from finding 100002; the first client's wait is its own.
func TestLookUpLimitsArePerClient(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, TrustedProxies: bfftest.LoopbackProxies()})
	find := func(b *bfftest.Harness, ip, number, email string) (*http.Response, string) {
		return b.PostFrom(ip, "/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}, "email": {email}})
	}
	var resp *http.Response
	var body string
	for i := range 10 {
		resp, body = find(h, "198.51.100.1", "100002", fmt.Sprintf("guess%d@example.com", i))
		want := http.StatusNotFound
		if i >= visit.FindPerBookingClient.Burst {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want {
			t.Fatalf("wrong e-mail %d: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	m := bfftest.WaitWords.FindStringSubmatch(strings.ToLower(body))
	if m == nil {
		t.Fatalf("no wait named: %s", body)
	}
	if n, _ := strconv.Atoi(m[1]); n < 50 || n > 60 {
		t.Fatalf("wait %d s, want this client's wait for this booking (about a minute)", n)
	}
	other := h.Browser()
	if resp, body := find(other, "203.0.113.5", "100002", "paid2@example.com"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("another client cannot find 100002: %d %s", resp.StatusCode, body)
	}
	// The first client can still find another booking: its refused attempts cost nothing.
	if resp, _ := find(h, "198.51.100.1", "100001", "paid1@example.com"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the first client cannot find another booking: %d", resp.StatusCode)
	}
	// And, after the wait, 100002 with the right address.
	if resp, _ := find(h.Browser(), "198.51.100.1", "100002", "paid2@example.com"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the first client is not limited for 100002 any more: %d", resp.StatusCode)
	}
	// Per client across bookings: ten failures on different numbers.
	for i := range visit.FindPerClient.Burst {
		if resp, _ := find(h, "198.51.100.2", strconv.Itoa(200000+i), "x@example.com"); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("failure %d: %d", i+1, resp.StatusCode)
		}
	}
	if resp, _ := find(h, "198.51.100.2", "100003", "paid3@example.com"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the client's own limit does not apply: %d", resp.StatusCode)
	}
}

// TestLookUpOutageDoesNotCount: look-ups that fail because the ticketing system is down cost
// the person nothing.
func TestLookUpOutageDoesNotCount(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 1000, OpenTimeout: time.Second}})
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetSingleBooking", HTTPStatus: 503})
	for i := range 12 {
		resp, _ := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {"paid2@example.com"}})
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("look-up %d during the outage: %d", i+1, resp.StatusCode)
		}
	}
	h.SB.Faults().Clear()
	if resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {"paid2@example.com"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the outage: %d %s", resp.StatusCode, body)
	}
}

// TestStaffFindsByScannedTicketCode: a signed ticket code typed into the find field by a
// scanner finds the booking for staff; a forged or unreadable code says so; a customer is told
// to use the number and e-mail. Staff look-ups are in the audit trail.
func TestStaffFindsByScannedTicketCode(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	code, err := h.Srv.Mail.Signer.Payload(tickets.Code{CinemaID: "0001", BookingID: "BK0186A2", BookingNumber: 100002, Line: 1, Seat: "F-7"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := tickets.NewSigner([]byte("another key, not the server's one"))
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := other.Payload(tickets.Code{CinemaID: "0001", BookingID: "BK0186A2", BookingNumber: 100002, Line: 1})
	scan := func(field string) (*http.Response, string) {
		return h.Post("/booking", "/booking", url.Values{"number": {field + "\r\n"}})
	}
	// A customer.
	if resp, body := scan(code); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "That is a ticket code.") {
		t.Fatalf("customer scans a code: %d %s", resp.StatusCode, body)
	}
	h.SaveAccount("anna", "Anna Box", staffaccounts.Clerk, "")
	h.SignIn("anna")
	doc := h.Page("/booking", http.StatusOK)
	if in := doc.Find(`input#number`); in.AttrOr("pattern", "") != "" || in.AttrOr("maxlength", "") != "256" {
		t.Fatal("the staff find field does not take a ticket code")
	}
	cases := []struct {
		name, field string
		status      int
		words       string
	}{
		{"forged", forged, http.StatusUnprocessableEntity, "This ticket code is not valid"},
		{"altered", strings.Replace(code, "n=100002", "n=100001", 1), http.StatusUnprocessableEntity, "This ticket code is not valid"},
		{"malformed", "TKT1 booking=BK0186A2 nonsense", http.StatusUnprocessableEntity, "could not be read as a ticket code"},
	}
	for _, tc := range cases {
		resp, body := scan(tc.field)
		if resp.StatusCode != tc.status || !strings.Contains(h.Doc(body).Find(`[data-testid="find-error"]`).Text(), tc.words) {
			t.Errorf("%s: %d, want %d with %q: %s", tc.name, resp.StatusCode, tc.status, tc.words, h.Doc(body).Find(`[data-testid="find-error"]`).Text())
		}
	}
	resp, _ := scan(code)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("staff scans a valid code: %d", resp.StatusCode)
	}
	if got := h.Page("/booking/current", http.StatusOK).Find("h1").Text(); got != "Booking 100002" {
		t.Fatalf("found %q", got)
	}
	rows := h.AuditActions()
	if countPrefix(rows, "anna look-up by ticket code") != 1 {
		t.Fatalf("audit rows: %q", rows)
	}
}

// TestNewPINsHaveSixToEightDigits: a supervisor's new PIN of 4 or 5 digits is
// refused; 6 to 8 digits are accepted.
func TestNewPINsHaveSixToEightDigits(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	for _, tc := range []struct {
		pin string
		ok  bool
	}{
		{"1234", false}, {"12345", false}, {"123456", true}, {"1234567", true}, {"12345678", true}, {"123456789", false},
	} {
		err := h.Srv.Staff.Save(context.Background(), staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: bfftest.TestPassword, Role: staffaccounts.Supervisor, PIN: tc.pin})
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, staffaccounts.ErrInvalid)) {
			t.Errorf("new PIN %q: %v, want accepted=%v", tc.pin, err, tc.ok)
		}
	}
}

// TestOldShortPINStillApprovesWithAWarning: a 4-digit PIN made before PINs needed 6
// digits still approves a refund; its owner is asked at every sign-in for a new one (first as
// a PIN of unknown length, then, once it approved, by its digits). A new 6-digit PIN asks
// nothing.
func TestOldShortPINStillApprovesWithAWarning(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.Srv.Settings.RefundApprovalAbove = 500
	h.AddOldSupervisor("olga", "Olga Old", "2468")
	warning := func(who, password string) string {
		t.Helper()
		b := h.Browser()
		b.SignInAs(who, password)
		doc := b.Page("/booking", http.StatusOK)
		if doc.Find(`[data-testid="find-error"]`).Length() > 0 {
			t.Fatalf("the look-up page shows an error after %s signed in: %q", who, doc.Find(`[data-testid="find-error"]`).Text())
		}
		return strings.TrimSpace(doc.Find(`[data-testid="notice-warning"]`).Text()) // a warning, not an error
	}
	if got := warning("olga", bfftest.TestPassword); !strings.Contains(got, "Your approval PIN was set before PINs needed 6 digits") {
		t.Fatalf("sign-in of a supervisor with an old PIN of unknown length says: %q", got)
	}
	h.SignInAs("carl", "clerk horse battery")
	h.CounterFind("100003")
	doc := h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {"olga"}, "pin": {"2468"}, "reason": {"Old PIN"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Refunded") {
		t.Fatalf("the old 4-digit PIN did not approve: %q", strings.TrimSpace(doc.Find("main").Text()))
	}
	if got := warning("olga", bfftest.TestPassword); !strings.Contains(got, "Your approval PIN has only 4 digits") || !strings.Contains(got, "6 to 8 digits") {
		t.Fatalf("sign-in of a supervisor with a 4-digit PIN says: %q", got)
	}
	if got := warning(bfftest.TestSupervisor, bfftest.TestSupervisorPassword); strings.Contains(got, "approval PIN") {
		t.Fatalf("a supervisor with a 6-digit PIN is warned: %q", got)
	}
}
