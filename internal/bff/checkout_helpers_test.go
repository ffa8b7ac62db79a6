package bff

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// absDo sends a request to an absolute URL (the provider's page) with the harness's client.
func (h *harness) absDo(method, u string, form url.Values) (*http.Response, string) {
	h.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// local turns an absolute URL of our site into a path with query.
func (h *harness) local(u string) string {
	h.t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		h.t.Fatal(err)
	}
	if p.Host != "" && !strings.HasPrefix(u, h.ts.URL) {
		h.t.Fatalf("%s is not on our site %s", u, h.ts.URL)
	}
	return p.RequestURI()
}

func expectRedirect(t testing.TB, resp *http.Response, body, to string) string {
	t.Helper()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(loc, to) {
		t.Fatalf("want a 303 to %s, got %d %q: %s", to, resp.StatusCode, loc, body)
	}
	return loc
}

// chooseTickets walks tickets → seats → details and lands on the summary.
func (h *harness) buyUpToSummary(session string, qty url.Values) {
	t := h.t
	t.Helper()
	page := "/whats-on/0001/" + session
	resp, body := h.post(page, page, qty)
	expectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.post("/checkout/seats", "/checkout/seats", h.checkedSeats())
	expectRedirect(t, resp, body, "/checkout/details")
	resp, body = h.post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	expectRedirect(t, resp, body, "/checkout")
}

// checkedSeats are the seats ticked on the seat page.
func (h *harness) checkedSeats() url.Values {
	h.t.Helper()
	_, body := h.get("/checkout/seats")
	form := url.Values{}
	h.doc(body).Find(`[data-testid="seatmap"] input[name="seat"]:checked`).Each(func(_ int, s *goquerySel) {
		v, _ := s.Attr("value")
		form.Add("seat", v)
	})
	if len(form["seat"]) == 0 {
		h.t.Fatalf("no seats ticked on the seat page: %s", body)
	}
	return form
}

// pay presses Pay and returns the provider's page.
func (h *harness) pressPay() string {
	h.t.Helper()
	resp, body := h.post("/checkout/pay", "/booking", nil)
	loc := expectRedirect(h.t, resp, body, h.upURL+"/pay/checkout/")
	return loc
}

// actAtProvider presses a button on the provider's page and returns our return URL (a path).
func (h *harness) actAtProvider(hosted, action string) string {
	h.t.Helper()
	if resp, body := h.absDo("GET", hosted, nil); resp.StatusCode != http.StatusOK {
		h.t.Fatalf("provider page %d: %s", resp.StatusCode, body)
	}
	resp, body := h.absDo("POST", hosted, url.Values{"action": {action}})
	loc := expectRedirect(h.t, resp, body, "/checkout/payments/")
	if !strings.Contains(loc, "token=") {
		h.t.Fatalf("return without a token: %s", loc)
	}
	return h.local(loc)
}

// waitForConfirmation follows the return page until it shows the confirmation.
func (h *harness) waitForConfirmation(returnPath string, within time.Duration) string {
	h.t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, body := h.get(returnPath)
		if resp.StatusCode != http.StatusOK {
			h.t.Fatalf("return page %d: %s", resp.StatusCode, body)
		}
		if h.doc(body).Find(`[data-testid="confirmation"]`).Length() == 1 {
			return body
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("no confirmation within %v: %s", within, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
