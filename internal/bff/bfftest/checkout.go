package bfftest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/tickets/qrread"
)

func TwoAdults() url.Values { return url.Values{"qty-0001": {"2"}} }

func MustLoc(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skip("no time zone database")
	}
	return loc
}

// AbsDo sends a request to an absolute URL (the provider's page) with the harness's client.
func (h *Harness) AbsDo(method, u string, form url.Values) (*http.Response, string) {
	h.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		h.T.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Local turns an absolute URL of our site into a path with query.
func (h *Harness) Local(u string) string {
	h.T.Helper()
	p, err := url.Parse(u)
	if err != nil {
		h.T.Fatal(err)
	}
	if p.Host != "" && !strings.HasPrefix(u, h.TS.URL) {
		h.T.Fatalf("%s is not on our site %s", u, h.TS.URL)
	}
	return p.RequestURI()
}

func ExpectRedirect(t testing.TB, resp *http.Response, body, to string) string {
	t.Helper()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(loc, to) {
		t.Fatalf("want a 303 to %s, got %d %q: %s", to, resp.StatusCode, loc, body)
	}
	return loc
}

// BuyUpToSummary walks tickets → seats → details and lands on the summary.
func (h *Harness) BuyUpToSummary(session string, qty url.Values) {
	t := h.T
	t.Helper()
	page := "/whats-on/0001/" + session
	resp, body := h.Post(page, page, qty)
	ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	ExpectRedirect(t, resp, body, "/checkout/details")
	resp, body = h.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	ExpectRedirect(t, resp, body, "/checkout")
}

// CheckedSeats are the seats ticked on the seat page.
func (h *Harness) CheckedSeats() url.Values {
	h.T.Helper()
	_, body := h.Get("/checkout/seats")
	form := url.Values{}
	h.Doc(body).Find(`[data-testid="seatmap"] input[name="seat"]:checked`).Each(func(_ int, s *GoquerySel) {
		v, _ := s.Attr("value")
		form.Add("seat", v)
	})
	if len(form["seat"]) == 0 {
		h.T.Fatalf("no seats ticked on the seat page: %s", body)
	}
	return form
}

// PressPay presses Pay and returns the provider's page.
func (h *Harness) PressPay() string {
	h.T.Helper()
	resp, body := h.Post("/checkout/pay", "/booking", nil)
	loc := ExpectRedirect(h.T, resp, body, h.UpstreamURL+"/pay/checkout/")
	return loc
}

// ActAtProvider presses a button on the provider's page and returns our return URL (a path).
func (h *Harness) ActAtProvider(hosted, action string) string {
	h.T.Helper()
	if resp, body := h.AbsDo("GET", hosted, nil); resp.StatusCode != http.StatusOK {
		h.T.Fatalf("provider page %d: %s", resp.StatusCode, body)
	}
	resp, body := h.AbsDo("POST", hosted, url.Values{"action": {action}})
	loc := ExpectRedirect(h.T, resp, body, "/checkout/payments/")
	if !strings.Contains(loc, "token=") {
		h.T.Fatalf("return without a token: %s", loc)
	}
	return h.Local(loc)
}

// WaitForConfirmation follows the return page until it shows the confirmation.
func (h *Harness) WaitForConfirmation(returnPath string, within time.Duration) string {
	h.T.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, body := h.Get(returnPath)
		if resp.StatusCode != http.StatusOK {
			h.T.Fatalf("return page %d: %s", resp.StatusCode, body)
		}
		if h.Doc(body).Find(`[data-testid="confirmation"]`).Length() == 1 {
			return body
		}
		if time.Now().After(deadline) {
			h.T.Fatalf("no confirmation within %v: %s", within, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func Url1Adult() map[string][]string { return map[string][]string{"qty-0001": {"1"}} }

func Squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// RecordOf returns the payment record behind a return path (/checkout/payments/<id>?token=…).
func (h *Harness) RecordOf(ret string) purchases.Record {
	h.T.Helper()
	parts := strings.Split(strings.Split(ret, "?")[0], "/")
	rec, err := h.Srv.Purchases.Get(context.Background(), parts[len(parts)-1])
	if err != nil {
		h.T.Fatal(err)
	}
	return rec
}

// WaitForState waits for the record's state (background work).
func (h *Harness) WaitForState(id string, want purchases.State, within time.Duration) purchases.Record {
	h.T.Helper()
	deadline := time.Now().Add(within)
	for {
		rec, err := h.Srv.Purchases.Get(context.Background(), id)
		if err != nil {
			h.T.Fatal(err)
		}
		if rec.State == want {
			return rec
		}
		if time.Now().After(deadline) {
			h.T.Fatalf("record %s is %s after %v, want %s", id, rec.State, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// What a new user ran into, one test each: concession lines, the last ticket, going back after
// paying, blocked booking numbers, moved tickets, party seating, split payments, seating areas
// and too many seats (the seat map's counter and limit in the browser are in
// newuser_browser_test.go).

var WaitWords = regexp.MustCompile(`try again in (\d+) seconds?`)

// Stored value: gift card PINs and loyalty cards cannot be guessed. Refusals read the
// same whatever was wrong, and are limited per card number, client and visit.

const (
	GiftCardPath = "/checkout/gift-card"
	LoyaltyPath  = "/checkout/loyalty"

	GiftCardRefused = "This gift card cannot be used: check the number and PIN."
	LoyaltyRefused  = "These loyalty details cannot be used: check the card number and PIN."
	CardTooMany     = "Too many failed attempts. Please try again in 15 minutes."
)

// CardAnswer is the summary page's answer to a card typed into one of its forms.
type CardAnswer struct {
	Status     int
	Message    string // the form's error
	RetryAfter string
}

// UseCard submits the gift card (giftCardPath) or loyalty (loyaltyPath) form; header is added
// to the request (a language).
func (h *Harness) UseCard(path, card, pin string, header http.Header) CardAnswer {
	h.T.Helper()
	form := url.Values{"card": {card}, "pin": {pin}, "_csrf": {h.CSRFToken("/checkout")}}
	resp, body := h.Do("POST", path, form, header)
	testid := map[string]string{GiftCardPath: "giftcard-error", LoyaltyPath: "loyalty-error"}[path]
	return CardAnswer{Status: resp.StatusCode, Message: Text(h.Doc(body), testid), RetryAfter: resp.Header.Get("Retry-After")}
}

// AppliedPayments counts the gift card and loyalty payments on the order's summary.
func (h *Harness) AppliedPayments() int {
	h.T.Helper()
	return h.Page("/checkout", http.StatusOK).Find(`[data-testid="applied"]`).Length()
}

// PageCodes decodes every ticket QR code a page shows (from its SVG markup) and checks its
// signature with the server's key.
func (h *Harness) PageCodes(doc *goquery.Document) []tickets.Code {
	h.T.Helper()
	signer, err := tickets.NewSigner(h.MailDeps.TicketKey)
	if err != nil {
		h.T.Fatal(err)
	}
	var out []tickets.Code
	doc.Find(`[data-testid="ticket-card"] [data-testid="ticket-qr"] svg`).Each(func(_ int, s *goquery.Selection) {
		svg, err := goquery.OuterHtml(s)
		if err != nil {
			h.T.Fatal(err)
		}
		text, err := qrread.DecodeSVG(svg)
		if err != nil {
			h.T.Fatalf("QR code on the page does not decode: %v", err)
		}
		code, err := signer.Parse(text)
		if err != nil {
			h.T.Fatalf("QR code %q: %v", text, err)
		}
		out = append(out, code)
	})
	return out
}

// DeliveredMail delivers the outbox and returns the stored messages of a kind, newest first.
func (h *Harness) DeliveredMail(kind string) []mail.StoredMessage {
	h.T.Helper()
	if _, err := h.Srv.DeliverMail(context.Background()); err != nil {
		h.T.Fatalf("deliver: %v", err)
	}
	list, err := mail.ListDir(h.MailDir)
	if err != nil {
		h.T.Fatal(err)
	}
	var out []mail.StoredMessage
	for _, s := range list {
		if s.Kind != kind {
			continue
		}
		m, err := mail.ReadStored(h.MailDir, s.Name)
		if err != nil {
			h.T.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// OneMail delivers the outbox and returns the one message of a kind.
func (h *Harness) OneMail(kind string) mail.StoredMessage {
	h.T.Helper()
	msgs := h.DeliveredMail(kind)
	if len(msgs) != 1 {
		h.T.Fatalf("%d %s messages, want 1", len(msgs), kind)
	}
	return msgs[0]
}

// Seat hoarding: a visit holds at most 10 seats, a client address has at most 3
// open orders, and a person who hits a limit is told what to do.

// ForwardedFor marks every request as coming from addr (the harness trusts loopback as a
// proxy: holdHarness).
type ForwardedFor struct {
	Addr string
	Next http.RoundTripper
}

func (f ForwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.Addr)
	return f.Next.RoundTrip(r)
}

// HoldHarness is a sandbox harness whose server believes X-Forwarded-For from the test client.
func HoldHarness(t *testing.T, o HarnessOpts) *Harness {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	o.Sandbox, o.TrustedProxies = true, []*net.IPNet{loopback}
	return NewHarness(t, o)
}

// Visitor is a new person at the site: their own visit (cookie jar) from client address addr.
func (h *Harness) Visitor(addr string) *Harness {
	v := *h
	jar, _ := cookiejar.New(nil)
	v.Client = &http.Client{Jar: jar, CheckRedirect: h.Client.CheckRedirect, Transport: ForwardedFor{Addr: addr, Next: http.DefaultTransport}}
	return &v
}

// ChooseQty posts the ticket step of session 1113.
func (h *Harness) ChooseQty(qty url.Values) (*http.Response, string) {
	h.T.Helper()
	return h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", qty)
}

// OpenOrders lists the open orders recorded for a client address.
func (h *Harness) OpenOrders(t *testing.T, addr string) []holds.Hold {
	t.Helper()
	got, err := holds.New(h.DB.SQL, nil).OpenFor(context.Background(), holds.ClientKey(addr))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// FreeSeats counts the seats of session 1113 that can be chosen now.
func (h *Harness) FreeSeats(t *testing.T) int {
	t.Helper()
	plan, err := h.Srv.Kernel.Ticketing.GetSeatPlan(context.Background(), "0001", "1113")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range plan.Areas {
		for _, r := range a.Rows {
			for _, st := range r.Seats {
				if st.Selectable() {
					n++
				}
			}
		}
	}
	return n
}

// BuyAfterSeats goes from the seat step to the summary (seats as offered, details).
func (h *Harness) BuyAfterSeats() {
	h.T.Helper()
	resp, body := h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	ExpectRedirect(h.T, resp, body, "/checkout/details")
	resp, body = h.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	ExpectRedirect(h.T, resp, body, "/checkout")
}
