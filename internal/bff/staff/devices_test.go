package staff_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

const testClerkPassword = "clerk horse battery"

func deviceMode(d *goquery.Document) string {
	return strings.TrimSpace(d.Find(`[data-testid="device-mode"]`).Text())
}

// TestDeviceWithoutSupervisorChangesNothing: /device without a signed-in supervisor shows what
// the device is and leads to sign-in; a POST is refused with a page leading to sign-in, and
// changes neither the cookie nor the database.
func TestDeviceWithoutSupervisorChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		signIn func(h *bfftest.Harness)
		says   string
	}{
		{"nobody signed in", func(*bfftest.Harness) {}, "Please sign in with a supervisor's account"},
		{"a clerk signed in", func(h *bfftest.Harness) {
			h.AddClerk("carl", "Carl Clerk", testClerkPassword)
			h.SignInAs("carl", testClerkPassword)
		}, "You are signed in as Carl Clerk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
			h.AddSupervisor(bfftest.TestSupervisor, bfftest.TestSupervisorName, bfftest.TestSupervisorPassword) // exists, not signed in
			tc.signIn(h)
			d := h.Page("/device", http.StatusOK)
			before := h.Cookie("device").Value
			if got := deviceMode(d); got != "Customer" {
				t.Fatalf("mode %q", got)
			}
			if d.Find(`[data-testid="device-form"], input[name="mode"]`).Length() != 0 {
				t.Fatal("the mode form is shown without a supervisor")
			}
			if !strings.Contains(d.Find(`[data-testid="device-locked"]`).Text(), tc.says) {
				t.Fatalf("the page does not say %q: %q", tc.says, d.Find(`[data-testid="device-locked"]`).Text())
			}
			action, _ := d.Find(`form[data-testid="device-signin"]`).Attr("action")
			link, _ := d.Find(`a[data-testid="device-signin-link"]`).Attr("href")
			if want := "/staff/sign-in?next=%2Fdevice"; action != want || link != want {
				t.Fatalf("sign-in form %q and link %q, want %q", action, link, want)
			}
			if h.Page(link, http.StatusOK).Find(`input[name="password"]`).Length() == 0 {
				t.Fatal("the link does not lead to the sign-in form")
			}

			for _, mode := range []string{"counter", "kiosk", "customer"} {
				resp, body := h.Post("/device", "/device", url.Values{"mode": {mode}, "name": {"Counter 9"}})
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "For supervisors only") || !strings.Contains(body, "Nothing was changed") {
					t.Fatalf("POST mode %s: %d %s", mode, resp.StatusCode, body)
				}
				if h.Doc(body).Find(`a[href="/staff/sign-in?next=%2Fdevice"]`).Length() == 0 {
					t.Fatalf("the refusal does not lead to sign-in: %s", body)
				}
			}
			if got := deviceMode(h.Page("/device", http.StatusOK)); got != "Customer" {
				t.Fatalf("mode after refused POSTs %q", got)
			}
			if after := h.Cookie("device").Value; after != before {
				t.Fatal("a refused POST rewrote the device cookie")
			}
			if n := len(h.EnrolmentsOf()); n != 0 {
				t.Fatalf("%d enrolments stored", n)
			}
			if n := len(h.AuditOf(audit.ActionDeviceEnrol)); n != 0 {
				t.Fatalf("%d enrolment audit rows", n)
			}

			// The page's sign-in form comes back to /device, where the supervisor may change it.
			resp, body := h.Post(action, "/device", url.Values{"username": {bfftest.TestSupervisor}, "password": {bfftest.TestSupervisorPassword}})
			bfftest.ExpectRedirect(t, resp, body, "/device")
			if loc := resp.Header.Get("Location"); loc != "/device" {
				t.Fatalf("after sign-in: %q, want /device", loc)
			}
			if h.Page("/device", http.StatusOK).Find(`[data-testid="device-form"]`).Length() != 1 {
				t.Fatal("no mode form after a supervisor signed in")
			}
		})
	}
}

// TestSupervisorEnrolsACounter: a signed-in supervisor names and enrols the browser as a
// counter (a row, an audit row); the counter works for a clerk after the supervisor signed
// out; enrolling again replaces the enrolment and choosing Customer ends it, both audited.
func TestSupervisorEnrolsACounter(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.SignInSupervisor()
	d := h.Page("/device", http.StatusOK)
	if d.Find(`[data-testid="device-form"] input[name="mode"]`).Length() != 3 || d.Find(`#device-name`).Length() != 1 {
		t.Fatal("a supervisor does not get the mode form with a name field")
	}
	deviceID := d.Find(`[data-testid="device-id"]`).Text()

	// A counter needs a name.
	resp, body := h.Post("/device", "/device", url.Values{"mode": {"counter"}, "name": {"   "}})
	if resp.StatusCode != http.StatusUnprocessableEntity || h.Doc(body).Find(`[data-testid="device-name-error"]`).Length() != 1 {
		t.Fatalf("no name: %d %s", resp.StatusCode, body)
	}
	if n := len(h.EnrolmentsOf()); n != 0 {
		t.Fatalf("enrolled without a name (%d rows)", n)
	}

	resp, body = h.Post("/device", "/device", url.Values{"mode": {"counter"}, "name": {" Counter 2 "}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=1")
	d = h.Page("/device?saved=1", http.StatusOK)
	if deviceMode(d) != "Box-office counter" || d.Find(`[data-testid="device-name"]`).Text() != "Counter 2" ||
		d.Find(`[data-testid="notice-success"]`).Length() != 1 || bfftest.BodyMode(d) != "mode-counter" {
		t.Fatalf("after enrolling: mode %q, name %q, body %q", deviceMode(d), d.Find(`[data-testid="device-name"]`).Text(), bfftest.BodyMode(d))
	}
	list := h.EnrolmentsOf()
	if len(list) != 1 || list[0].Name != "Counter 2" || list[0].Mode != device.Counter || list[0].EnrolledBy != bfftest.TestSupervisor ||
		list[0].DeviceID != deviceID || !list[0].Live() {
		t.Fatalf("enrolments %+v", list)
	}
	counter := list[0]
	enrols := h.AuditOf(audit.ActionDeviceEnrol)
	if len(enrols) != 1 || enrols[0].Actor != bfftest.TestSupervisor || !strings.Contains(enrols[0].Detail, `"Counter 2"`) || !strings.Contains(enrols[0].Detail, "counter") {
		t.Fatalf("audit %+v", enrols)
	}

	// The counter works: the supervisor signs out, a clerk signs in at the counter.
	h.SignOutStaff()
	h.AddClerk("carl", "Carl Clerk", testClerkPassword)
	h.SignInAs("carl", testClerkPassword)
	d = h.Page("/booking", http.StatusOK)
	if bfftest.BodyMode(d) != "mode-counter" || d.Find(`[data-testid="next-customer"]`).Length() != 1 {
		t.Fatalf("a clerk at the counter: body %q, next-customer %d", bfftest.BodyMode(d), d.Find(`[data-testid="next-customer"]`).Length())
	}
	// The clerk cannot change it.
	if resp, _ := h.Post("/device", "/device", url.Values{"mode": {"customer"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a clerk took the counter out of its mode: %d", resp.StatusCode)
	}
	// The same clerk in a browser that is not enrolled is not at a counter.
	counterJar := h.Client.Jar
	h.Client.Jar, _ = cookiejar.New(nil)
	h.SignInAs("carl", testClerkPassword)
	if d := h.Page("/booking", http.StatusOK); bfftest.BodyMode(d) != "mode-customer" || d.Find(`[data-testid="next-customer"]`).Length() != 0 {
		t.Fatalf("a clerk in an unenrolled browser: body %q", bfftest.BodyMode(d))
	}
	h.Client.Jar = counterJar

	// Enrolling again replaces the enrolment. A kiosk is unattended: the supervisor's sign-in
	// ends with its enrolment, and the terminal shows the kiosk's first screen.
	h.SignInSupervisor()
	resp, body = h.Post("/device", "/device", url.Values{"mode": {"kiosk"}, "name": {"Lobby 1"}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=kiosk")
	d = h.Page("/device?saved=kiosk", http.StatusOK)
	if d.Find(`[data-testid="staff-badge"]`).Length() != 0 || d.Find(`[data-testid="device-form"]`).Length() != 0 {
		t.Fatal("the supervisor is still signed in on the new kiosk")
	}
	if !strings.Contains(d.Find(`[data-testid="notice-success"]`).Text(), "You have been signed out") ||
		d.Find(`[data-testid="device-kiosk-start"]`).AttrOr("href", "") != "/" {
		t.Fatalf("the saved page does not say so: %q", d.Find("main").Text())
	}
	if outs := h.AuditOf(audit.ActionSignOut); len(outs) == 0 || outs[0].Actor != bfftest.TestSupervisor || !strings.Contains(outs[0].Detail, "lobby kiosk") {
		t.Fatalf("sign-out audit rows %+v", outs)
	}
	list = h.EnrolmentsOf()
	if len(list) != 2 || list[0].Name != "Lobby 1" || list[0].Mode != device.Kiosk || !list[0].Live() ||
		list[1].ID != counter.ID || list[1].Live() || list[1].RevokedBy != bfftest.TestSupervisor {
		t.Fatalf("after re-enrolling: %+v", list)
	}
	if got := deviceMode(h.Page("/device", http.StatusOK)); got != "Lobby kiosk" {
		t.Fatalf("mode %q", got)
	}
	// And Customer ends it, chosen by a supervisor who signs in at the kiosk.
	h.SignInSupervisor()
	resp, body = h.Post("/device", "/device", url.Values{"mode": {"customer"}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=1")
	if got := deviceMode(h.Page("/device", http.StatusOK)); got != "Customer" {
		t.Fatalf("mode %q", got)
	}
	for _, e := range h.EnrolmentsOf() {
		if e.Live() {
			t.Fatalf("still live: %+v", e)
		}
	}
	revokes := h.AuditOf(audit.ActionDeviceRevoke)
	if len(revokes) != 2 || !strings.Contains(revokes[0].Detail, `"Lobby 1" as kiosk`) || !strings.Contains(revokes[1].Detail, `"Counter 2" as counter`) {
		t.Fatalf("revoke audit rows %+v", revokes)
	}
	if n := len(h.AuditOf(audit.ActionDeviceEnrol)); n != 2 {
		t.Fatalf("%d enrol audit rows, want 2", n)
	}
}

// TestRevokeAtStaffDevicesEndsTheMode: only a supervisor sees /staff/devices and revokes; the
// revoked counter is a customer device at its next request (this server forgets its cached
// row at once), with the same device reference.
func TestRevokeAtStaffDevicesEndsTheMode(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	h.Enrol(device.Counter)
	counterJar := h.Client.Jar
	counterID := h.Page("/device", http.StatusOK).Find(`[data-testid="device-id"]`).Text()
	counterCookie := h.Cookie("device").Value
	enrolment := h.EnrolmentsOf()[0]

	// Nobody and a clerk are refused, the list as well as the revocation.
	h.AddClerk("carl", "Carl Clerk", testClerkPassword)
	for _, who := range []string{"nobody", "carl"} {
		h.Client.Jar, _ = cookiejar.New(nil)
		if who != "nobody" {
			h.SignInAs(who, testClerkPassword)
		}
		resp, body := h.Get("/staff/devices")
		if resp.StatusCode != http.StatusForbidden || h.Doc(body).Find(`a[href="/staff/sign-in?next=%2Fstaff%2Fdevices"]`).Length() != 1 {
			t.Fatalf("%s: GET /staff/devices: %d %s", who, resp.StatusCode, body)
		}
		resp, _ = h.Post("/staff/devices/"+strconv.FormatInt(enrolment.ID, 10)+"/revoke", "/device", nil)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: revoke: %d", who, resp.StatusCode)
		}
	}
	if !h.EnrolmentsOf()[0].Live() {
		t.Fatal("a refused revocation revoked")
	}

	// A supervisor, in another browser, lists and revokes.
	h.Client.Jar, _ = cookiejar.New(nil)
	h.SignInSupervisor()
	d := h.Page("/staff/devices", http.StatusOK)
	row := d.Find(`[data-testid="enrolment"][data-id="` + strconv.FormatInt(enrolment.ID, 10) + `"]`)
	if row.Find(`[data-testid="enrolment-name"]`).Text() != "Test counter" || row.Find(`[data-testid="enrolment-mode"]`).Text() != "Box-office counter" ||
		row.Find(`[data-testid="enrolment-by"]`).Text() != bfftest.TestSupervisor || row.Find(`time`).Length() != 1 ||
		strings.TrimSpace(row.Find(`[data-testid="enrolment-state"]`).Text()) != "Live" {
		t.Fatalf("row: %q", row.Text())
	}
	action, _ := row.Find(`form[data-testid="revoke-form"]`).Attr("action")
	if tok, _ := row.Find(`form[data-testid="revoke-form"] input[name="_csrf"]`).Attr("value"); tok == "" {
		t.Fatal("the revoke form has no CSRF token")
	}
	if resp, _ := h.Do("POST", action, url.Values{}, nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("revoke without a CSRF token: %d", resp.StatusCode)
	}
	if !h.EnrolmentsOf()[0].Live() {
		t.Fatal("revoked without a CSRF token")
	}
	resp, d := h.Submit(action, "/staff/devices", nil)
	row = d.Find(`[data-testid="enrolment"][data-id="` + strconv.FormatInt(enrolment.ID, 10) + `"]`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(d.Find(`[data-testid="notice-success"]`).Text(), "no longer a box-office counter") ||
		strings.TrimSpace(row.Find(`[data-testid="enrolment-state"]`).Text()) != "Revoked" || row.Find(`form`).Length() != 0 {
		t.Fatalf("after revoking: %d, row %q", resp.StatusCode, row.Text())
	}
	revokes := h.AuditOf(audit.ActionDeviceRevoke)
	if len(revokes) != 1 || revokes[0].Actor != bfftest.TestSupervisor || !strings.Contains(revokes[0].Detail, `"Test counter" as counter`) {
		t.Fatalf("audit %+v", revokes)
	}
	// A second revocation says so and is not audited again; an unknown one is not found.
	_, d = h.Submit(action, "/staff/devices", nil)
	if !strings.Contains(d.Find(`[data-testid="notice-success"]`).Text(), "already revoked") || len(h.AuditOf(audit.ActionDeviceRevoke)) != 1 {
		t.Fatal("second revocation")
	}
	if resp, _ := h.Post("/staff/devices/999999/revoke", "/staff/devices", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown enrolment: %d", resp.StatusCode)
	}

	// The counter's next request: a customer device, same reference, cookie rewritten.
	h.Client.Jar = counterJar
	d = h.Page("/device", http.StatusOK)
	if deviceMode(d) != "Customer" || bfftest.BodyMode(d) != "mode-customer" || d.Find(`[data-testid="device-id"]`).Text() != counterID {
		t.Fatalf("revoked counter: mode %q body %q id %q", deviceMode(d), bfftest.BodyMode(d), d.Find(`[data-testid="device-id"]`).Text())
	}
	if h.Cookie("device").Value == counterCookie {
		t.Fatal("the cookie of the revoked enrolment was not rewritten")
	}
}

// TestReplayedOrForgedDeviceCookieIsCustomer: a cookie kept from a revoked enrolment, and a
// validly signed cookie naming another device's live enrolment, are customer devices.
func TestReplayedOrForgedDeviceCookieIsCustomer(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	h.Enrol(device.Kiosk)
	kept := h.Cookie("device").Value
	live := h.EnrolmentsOf()[0]
	if _, d := h.WithDeviceCookie("/device", kept); deviceMode(d) != "Lobby kiosk" {
		t.Fatalf("the live cookie in another client: %q (the replay below would prove nothing)", deviceMode(d))
	}

	// Signed with the server's key (as if the key had leaked) but for another device.
	rec := httptest.NewRecorder()
	if err := h.Srv.Kernel.Devices.Write(rec, httptest.NewRequest("GET", "/", nil), device.Info{ID: "someone-else", Enrolment: live.ID, Mode: device.Kiosk}); err != nil {
		t.Fatal(err)
	}
	forged := rec.Result().Cookies()[0].Value
	if _, d := h.WithDeviceCookie("/device", forged); deviceMode(d) != "Customer" || bfftest.BodyMode(d) != "mode-customer" {
		t.Fatalf("another device's enrolment accepted: %q", deviceMode(d))
	}

	// Revoke; then the kept cookie is replayed.
	h.Enrol(device.Customer)
	resp, d := h.WithDeviceCookie("/device", kept)
	if deviceMode(d) != "Customer" || bfftest.BodyMode(d) != "mode-customer" {
		t.Fatalf("replayed cookie of a revoked enrolment: %q", deviceMode(d))
	}
	var rewritten bool
	for _, c := range resp.Cookies() {
		rewritten = rewritten || (c.Name == "device" && c.Value != kept)
	}
	if !rewritten {
		t.Fatal("the replayed cookie was not replaced")
	}
	if _, d := h.WithDeviceCookie("/", kept); d.Find(`[data-idle-reset]`).Length() != 0 {
		t.Fatal("the replayed kiosk cookie still gets the kiosk's idle reset")
	}
}
