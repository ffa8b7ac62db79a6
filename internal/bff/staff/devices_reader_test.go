package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// readerRows maps each live terminal's name on /staff/devices to its card reader cell.
func readerRows(t *testing.T, doc *goquery.Document) map[string]*goquery.Selection {
	t.Helper()
	out := map[string]*goquery.Selection{}
	doc.Find(`[data-testid="enrolment"][data-live="true"]`).Each(func(_ int, row *goquery.Selection) {
		out[strings.TrimSpace(row.Find(`[data-testid="enrolment-name"]`).Text())] = row.Find(`[data-testid="enrolment-reader"]`)
	})
	return out
}

// TestSecondTerminalTakesTheReader: a counter's card reader, chosen for a second terminal,
// moves there: the set-up page says who uses it before, and that it moved after; the reader
// is on one live enrolment only, audited; /staff/devices shows each terminal's reader with its
// state at the provider (busy while it asks for a card, online, offline) and, for the counter
// that lost it, where it went; the counter says so at its next payment and refuses the reader
// in words, in English and German.
func TestSecondTerminalTakesTheReader(t *testing.T) {
	counter := bfftest.CounterHarness(t)
	counter.EnrolWithReader(device.Counter)
	readers := counter.Prov.Readers()
	if len(readers) != 1 {
		t.Fatalf("readers after enrolling the counter: %+v", readers)
	}
	readerID := readers[0].ID
	offline := counter.Prov.SeedReader("tmr_offline", "Spare reader")
	if err := counter.Prov.SetReaderOffline(offline.ID, true); err != nil {
		t.Fatal(err)
	}

	// The counter's reader asks for a card: the terminals page says it is busy.
	counter.SignInAs("carl", "clerk horse battery")
	counter.CounterFind("100002")
	counter.CounterAddAdult(t)
	resp, _ := counter.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	status := resp.Header.Get("Location")
	sup := counter.FreshBrowser()
	sup.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	cell := readerRows(t, sup.Page("/staff/devices", http.StatusOK))["Reader counter"]
	if cell.AttrOr("data-reader", "") != readerID || cell.AttrOr("data-state", "") != "busy" ||
		!strings.Contains(cell.Text(), "Online, taking a payment") {
		t.Fatalf("the counter's reader while it asks for a card: %q %q %q", cell.AttrOr("data-reader", ""), cell.AttrOr("data-state", ""), cell.Text())
	}
	if err := counter.Prov.PresentPaymentMethod(readerID, "4000000000000002"); err != nil { // declined: the reader is free again
		t.Fatal(err)
	}
	counter.FollowStatus(t, status)

	// A second terminal is set up with the counter's reader: the page says whose it is.
	note := sup.Page("/device", http.StatusOK).Find(`#reader-` + readerID).Parent().Find(`[data-testid="device-reader-used"]`).Text()
	if !strings.Contains(note, "“Reader counter”") || !strings.Contains(note, "moves it here") {
		t.Fatalf("the set-up page's note on the counter's reader: %q", note)
	}
	resp, body := sup.Post("/device", "/device", url.Values{"mode": {"kiosk"}, "name": {"Kiosk 2"}, "reader": {readerID}, "cinema": {"0001"}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=kiosk") // a kiosk: the supervisor is signed out
	if saved := sup.Page("/device?saved=kiosk", http.StatusOK).Find(`[data-testid="device-saved-note"]`).Text(); !strings.Contains(saved, "moved here from “Reader counter”") {
		t.Fatalf("the saved page does not say the reader moved: %q", saved)
	}
	live := 0
	for _, e := range counter.EnrolmentsOf() {
		if e.Live() && e.ReaderID == readerID {
			live++
		}
	}
	if live != 1 {
		t.Fatalf("%d live terminals have the reader", live)
	}
	moved := false
	for _, a := range counter.AuditOf(audit.ActionDeviceEnrol) {
		moved = moved || strings.Contains(a.Detail, "card reader "+readerID+" moved from \"Reader counter\"")
	}
	if !moved {
		t.Fatal("the move is not in the audit trail")
	}

	// A third terminal with the offline reader.
	third := counter.FreshBrowser()
	third.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	resp, body = third.Post("/device", "/device", url.Values{"mode": {"counter"}, "name": {"Counter 3"}, "reader": {offline.ID}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=1")

	// The kiosk signed its supervisor out; the third terminal's supervisor is still signed in.
	rows := readerRows(t, third.Page("/staff/devices", http.StatusOK))
	for name, want := range map[string]struct{ reader, state, says string }{
		"Kiosk 2":        {readerID, "online", "Online, ready"},
		"Counter 3":      {offline.ID, "offline", "Offline"},
		"Reader counter": {"", "", "was moved to “Kiosk 2” by " + bfftest.TestSupervisor},
	} {
		cell := rows[name]
		if cell == nil || cell.AttrOr("data-reader", "") != want.reader || cell.AttrOr("data-state", "") != want.state || !strings.Contains(cell.Text(), want.says) {
			t.Errorf("%s: reader %q, state %q, %q; want %+v", name, cell.AttrOr("data-reader", ""), cell.AttrOr("data-state", ""), strings.TrimSpace(cell.Text()), want)
		}
	}

	// The counter that lost its reader says so at its next payment, and takes no card on it.
	pay := counter.Page("/booking/edit/counter-payment", http.StatusOK)
	if pay.Find(`#method-reader`).Length() != 0 || !strings.Contains(pay.Find(`[data-testid="counter-reader-moved"]`).Text(), "was moved to “Kiosk 2”") {
		t.Fatalf("the counter's payment page after the move: %s", bfftest.Squash(pay.Find("main").Text()))
	}
	resp, body = counter.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	if text := counter.Doc(body).Find("main").Text(); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(text, "No card payment was started: this counter's card reader is now another terminal's") ||
		!strings.Contains(text, "was moved to “Kiosk 2”") || !strings.Contains(text, "Take cash") {
		t.Fatalf("the reader at the counter after the move: %d %s", resp.StatusCode, bfftest.Squash(counter.Doc(body).Find("main").Text()))
	}
	_, deBody := counter.Do("GET", "/booking/edit/counter-payment", nil, bfftest.GermanBrowser)
	if got := counter.Doc(deBody).Find(`[data-testid="counter-reader-moved"]`).Text(); !strings.Contains(got, "an „Kiosk 2“ übergeben") {
		t.Fatalf("in German: %q", got)
	}
}

// TestKioskSaysItsReaderMoved: a kiosk whose card reader went to a counter tells its next
// guest at Pay, in words, that it cannot take cards and that nothing was charged; the reader
// is asked for nothing and the guest is not sent to a web payment page.
func TestKioskSaysItsReaderMoved(t *testing.T) {
	kiosk := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	kiosk.EnrolWithReader(device.Kiosk)
	readerID := kiosk.Prov.Readers()[0].ID
	sup := kiosk.FreshBrowser()
	sup.SignInSupervisor()
	resp, body := sup.Post("/device", "/device", url.Values{"mode": {"counter"}, "name": {"Counter 1"}, "reader": {readerID}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=1")

	page := "/whats-on/0001/1113"
	resp, body = kiosk.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = kiosk.Post("/checkout/seats", "/checkout/seats", kiosk.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details") // without a reader the kiosk asks who pays
	resp, body = kiosk.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = kiosk.Post("/checkout/pay", "/checkout", nil)
	text := bfftest.Squash(kiosk.Doc(body).Find("main").Text())
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(text, "This kiosk cannot take cards right now") ||
		!strings.Contains(text, "was moved to “Counter 1”") || !strings.Contains(text, "nothing has been charged") {
		t.Fatalf("Pay at the kiosk after its reader moved: %d %s", resp.StatusCode, text)
	}
	if r, _ := kiosk.Prov.Reader(readerID); r.Action != nil {
		t.Fatalf("the reader was asked: %+v", r.Action)
	}
}

// TestKioskEnrolmentKeepsBothNotices: a supervisor turns a counter into a lobby kiosk while a
// walk-in's tickets are on the counter's card reader, and the provider does not answer the
// request to stop it; the kiosk takes the card reader of another terminal. Ending the sign-in
// gives the purchase up (its seats free) and says the reader did not answer; the saved page
// says that beside the reader's move, neither notice in place of the other.
func TestKioskEnrolmentKeepsBothNotices(t *testing.T) {
	first := bfftest.CounterHarness(t)
	first.EnrolWithReader(device.Counter)
	taken := first.Prov.Readers()[0].ID
	h := first.FreshBrowser()
	h.EnrolWithReader(device.Counter)

	h.SignInSupervisor()
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	seats := h.HeldSeats()
	h.WalkInToReader(t)
	if reader, _ := h.ReaderAsking(t); reader.ID == taken {
		t.Fatalf("the sale is on the reader the kiosk is to take (%s)", taken)
	}

	stops := []string{payprovider.OpTerminalReadersCancelAction, payprovider.OpPaymentIntentsCancel}
	for _, op := range stops {
		h.Prov.SetFailNext(op, 20, http.StatusServiceUnavailable)
	}
	resp, body := h.Post("/device", "/device", url.Values{"mode": {"kiosk"}, "name": {"Kiosk 2"}, "reader": {taken}, "cinema": {"0001"}})
	for _, op := range stops {
		h.Prov.SetFailNext(op, 0, 0)
	}
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=kiosk")
	saved := strings.Join(strings.Fields(h.Page("/device?saved=kiosk", http.StatusOK).Find(`[data-testid="device-saved-note"]`).Text()), " ")
	for _, want := range []string{"moved here from “Reader counter”", "The card reader did not answer when the purchase was given up."} {
		if !strings.Contains(saved, want) {
			t.Errorf("the saved page's notice lacks %q: %q", want, saved)
		}
	}
	for i, st := range h.SeatStates("1113", seats) {
		if st != cinema.SeatFree {
			t.Errorf("seat %+v of the given-up purchase is %v, want free", seats[i], st)
		}
	}
}
