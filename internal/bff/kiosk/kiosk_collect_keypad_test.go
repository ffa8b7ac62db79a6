package kiosk_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestKioskCollectScanThrottled: forged codes count against the client's look-up allowance,
// shared with the booking look-up: after ten the kiosk asks to wait (429, Retry-After), for
// codes and for number and e-mail alike; a validly signed code (it cannot be guessed) is served.
func TestKioskCollectScanThrottled(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	valid := bfftest.SignedTicketCode(t, h)
	forged := strings.Replace(valid, "n=100002", "n=100001", 1)
	if forged == valid {
		t.Fatalf("cannot alter the code %q", valid)
	}
	for i := 1; i <= 10; i++ {
		resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {forged}})
		got := h.Doc(body).Find(`[data-testid="collect-scan-error"]`).Text()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, "not valid") {
			t.Fatalf("forged code %d: %d %q", i, resp.StatusCode, got)
		}
	}
	resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {forged}})
	got := h.Doc(body).Find(`[data-testid="collect-scan-error"]`).Text()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(got, "Too many attempts") {
		t.Errorf("eleventh forged code: %d (Retry-After %q) %q, want 429 asking to wait", resp.StatusCode, resp.Header.Get("Retry-After"), got)
	}
	// The allowance is the look-up's: guessing by number and e-mail waits too.
	resp, body = h.Collect("100002", "paid2@example.com")
	if got := h.Doc(body).Find(`[data-testid="collect-error"]`).Text(); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(got, "Too many attempts") {
		t.Errorf("number and e-mail after ten forged codes: %d %q, want 429", resp.StatusCode, got)
	}
	// A valid signature cannot be guessed: it is no attempt to throttle, and it is served.
	resp, body = h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {valid}})
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
}

// TestKioskCollectKeypads: without JavaScript, each key of the on-screen keypads is a submit
// button of the collect form; pressing it brings the form back with the key typed (nothing is
// looked up), so the booking number and e-mail are typed by touch alone, and Collect tickets
// finds the booking. Back and Clear edit what was typed. The counter gets no keypads.
func TestKioskCollectKeypads(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	doc := h.Page("/kiosk/collect", http.StatusOK)
	for _, pad := range []string{"collect-number-keypad", "collect-email-keypad"} {
		if n := doc.Find(`[data-testid="` + pad + `"] button[type="submit"][name="key"][formnovalidate]`).Length(); n < 12 {
			t.Errorf("%s has %d submit keys", pad, n)
		}
	}
	for _, key := range []string{"email:@", "email:.", "email:-", "email:_", "email:a", "email:0", "number:9", "number:back", "number:clear"} {
		if doc.Find(`button[name="key"][value="`+key+`"]`).Length() != 1 {
			t.Errorf("no key %s", key)
		}
	}
	// Enter in a field submits the form's first submit button: it must look the booking up.
	if first := doc.Find(`[data-testid="collect-form"] button[type="submit"]`).First(); first.AttrOr("name", "") != "" {
		t.Errorf("the form's default button is a key (%s)", first.AttrOr("value", ""))
	}
	lookups := h.SB.Calls("GetSingleBooking")

	number, email := "", ""
	press := func(key string) {
		t.Helper()
		resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"cinema": {"0001"}, "number": {number}, "email": {email}, "key": {key}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("key %s: %d", key, resp.StatusCode)
		}
		d := h.Doc(body)
		number, email = d.Find("#collect-number").AttrOr("value", ""), d.Find("#collect-email").AttrOr("value", "")
	}
	for _, tc := range []struct {
		keys          []string
		number, email string
	}{
		{[]string{"number:1", "number:0", "number:7"}, "107", ""},
		{[]string{"number:back", "number:back"}, "1", ""},
		{[]string{"number:clear"}, "", ""},
		{[]string{"number:1", "number:0", "number:0", "number:0", "number:0", "number:2", "number:x"}, "100002", ""},
		{[]string{"email:x", "email:back"}, "100002", ""},
		{bfftest.KeysOf("email", "paid2@example.com"), "100002", "paid2@example.com"},
	} {
		for _, k := range tc.keys {
			press(k)
		}
		if number != tc.number || email != tc.email {
			t.Fatalf("after %v: number %q, e-mail %q; want %q, %q", tc.keys, number, email, tc.number, tc.email)
		}
	}
	if n := h.SB.Calls("GetSingleBooking"); n != lookups {
		t.Errorf("key presses looked the booking up %d times", n-lookups)
	}
	resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"cinema": {"0001"}, "number": {number}, "email": {email}})
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")

	counter := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	counter.Enrol(device.Counter)
	counter.SignInSupervisor()
	cdoc := counter.Page("/kiosk/collect", http.StatusOK)
	if n := cdoc.Find(".kiosk-keypad").Length(); n != 0 {
		t.Errorf("the counter shows %d on-screen keypads", n)
	}
}

// TestKioskCollectedDoneIsTheMainAction: once the tickets are printing, the main action is Done
// (the visit ends); printing again is the secondary one, and no button says "Print tickets".
func TestKioskCollectedDoneIsTheMainAction(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {bfftest.SignedTicketCode(t, h)}})
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	doc := h.Page("/kiosk/collect/tickets", http.StatusOK)
	primary := doc.Find(`[data-testid="collected"] .button-primary`)
	if primary.Length() != 1 || primary.AttrOr("data-testid", "") != "collect-done" || strings.TrimSpace(primary.Text()) != "Done" {
		t.Errorf("main action %d %q %q, want Done", primary.Length(), primary.AttrOr("data-testid", ""), primary.Text())
	}
	again := doc.Find(`[data-testid="print"]`)
	if again.HasClass("button-primary") || strings.TrimSpace(again.Text()) != "Print again" {
		t.Errorf("print button %q (primary %v), want a secondary Print again", again.Text(), again.HasClass("button-primary"))
	}
	if strings.Contains(doc.Find(`[data-testid="collected"]`).Text(), "Print tickets") {
		t.Error(`the page says "Print tickets" while printing them`)
	}
	form := primary.Closest("form")
	if form.AttrOr("action", "") != "/visit/reset" || form.AttrOr("method", "") != "post" {
		t.Errorf("Done posts to %q", form.AttrOr("action", ""))
	}
}

// TestKioskCollectCodeScannedIntoAField: a guest who touched the number or e-mail field and then
// held the QR code up has the code typed there: it is read as a scanned code (no e-mail asked),
// and a forged one is refused as a scan is.
func TestKioskCollectCodeScannedIntoAField(t *testing.T) {
	for _, field := range []string{"number", "email"} {
		t.Run(field, func(t *testing.T) {
			h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
			valid := bfftest.SignedTicketCode(t, h)
			doc := h.Page("/kiosk/collect", http.StatusOK)
			if _, limited := doc.Find("#collect-number").Attr("maxlength"); limited {
				t.Error("the kiosk's number field has a maxlength: a code scanned into it would be cut")
			}
			forged := strings.Replace(valid, "n=100002", "n=100001", 1)
			resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"cinema": {"0001"}, field: {forged}})
			if got := h.Doc(body).Find(`[data-testid="collect-scan-error"]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, "not valid") {
				t.Errorf("forged code in the %s field: %d %q", field, resp.StatusCode, got)
			}
			resp, body = h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"cinema": {"0001"}, field: {valid}})
			bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
		})
	}
}
