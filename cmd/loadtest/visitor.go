package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// visitor is one browser: its own cookies and its own address (sent as X-Forwarded-For, which
// the service trusts from the loopback, as from a reverse proxy: the look-up and hold limits
// are per address), redirects not followed (each step checks where it is sent).
type visitor struct {
	site   string
	addr   string
	client *http.Client
}

func newVisitor(site string, i int) *visitor {
	jar, _ := cookiejar.New(nil)
	v := &visitor{site: site, addr: fmt.Sprintf("10.%d.%d.%d", (i>>16)&255, (i>>8)&255, i&255),
		client: noRedirectClient(0)}
	v.client.Jar = jar
	return v
}

// noRedirectClient is a client that does not follow redirects (a redirect's answer is the
// answer), with the time-out (0: none).
func noRedirectClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// fetch GETs a target with the client and returns the status and the body.
func fetch(ctx context.Context, client *http.Client, t target) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header = t.header.Clone()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// header is what every request of the visitor to the site carries: its cookies and address.
func (v *visitor) header() http.Header {
	return http.Header{"Cookie": {v.cookieHeader()}, "X-Forwarded-For": {v.addr}}
}

// target is the visitor's GET of path with its cookies, address and the extra header.
func (v *visitor) target(path string, extra http.Header) target {
	h := v.header()
	for k, vs := range extra {
		h[k] = vs
	}
	return target{url: v.site + path, header: h}
}

// cookieHeader is the Cookie header the visitor sends to the site: the attack sends it as is.
func (v *visitor) cookieHeader() string {
	u, _ := url.Parse(v.site)
	var parts []string
	for _, c := range v.client.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

// do sends a request (a path on the site, or an absolute URL) and returns the answer and its body.
func (v *visitor) do(ctx context.Context, method, target string, form url.Values) (*http.Response, string, error) {
	if strings.HasPrefix(target, "/") {
		target = v.site + target
	}
	toSite := strings.HasPrefix(target, v.site+"/")
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if toSite {
		req.Header.Set("X-Forwarded-For", v.addr)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// page GETs a page that must answer 200 and parses it.
func (v *visitor) page(ctx context.Context, target string) (*goquery.Document, error) {
	resp, body, err := v.do(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.300s", target, resp.StatusCode, body)
	}
	return goquery.NewDocumentFromReader(strings.NewReader(body))
}

// submit posts a form with the CSRF token of tokenPage and returns where the site redirects.
func (v *visitor) submit(ctx context.Context, path, tokenPage string, form url.Values) (string, error) {
	doc, err := v.page(ctx, tokenPage)
	if err != nil {
		return "", err
	}
	tok, _ := doc.Find(`input[name="_csrf"]`).First().Attr("value")
	if tok == "" {
		return "", fmt.Errorf("no CSRF token on %s", tokenPage)
	}
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", tok)
	resp, body, err := v.do(ctx, http.MethodPost, path, form)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("POST %s: status %d: %.300s", path, resp.StatusCode, body)
	}
	return resp.Header.Get("Location"), nil
}

// findBooking looks a ready-made booking up by number and e-mail (docs/sandbox.md).
func (v *visitor) findBooking(ctx context.Context, b booking) error {
	to, err := v.submit(ctx, "/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {b.number}, "email": {b.email}})
	if err != nil {
		return fmt.Errorf("find booking %s: %w", b.number, err)
	}
	if !strings.HasSuffix(to, "/booking/current") {
		return fmt.Errorf("find booking %s: sent to %q", b.number, to)
	}
	return nil
}

// startEdit starts a change of the booking found.
func (v *visitor) startEdit(ctx context.Context) error {
	to, err := v.submit(ctx, "/booking/edit/start", "/booking/current", nil)
	if err != nil {
		return fmt.Errorf("start edit: %w", err)
	}
	if !strings.HasSuffix(to, "/booking/edit") {
		return fmt.Errorf("start edit: sent to %q", to)
	}
	return nil
}

// whatsOnDays are the links of What's on of cinema 0001 to each day it offers.
func (v *visitor) whatsOnDays(ctx context.Context) ([]string, error) {
	doc, err := v.page(ctx, "/whats-on?cinema=0001")
	if err != nil {
		return nil, err
	}
	var days []string
	doc.Find(`[data-testid="days"] a`).Each(func(_ int, s *goquery.Selection) {
		if href, ok := s.Attr("href"); ok {
			days = append(days, href)
		}
	})
	if len(days) == 0 {
		return nil, fmt.Errorf("what's on links no days")
	}
	return days, nil
}

// chooseTicket chooses one adult ticket for a session of cinema 0001: the visit then holds an
// order and is on the seat page.
func (v *visitor) chooseTicket(ctx context.Context, session int) error {
	page := fmt.Sprintf("/whats-on/0001/%d", session)
	to, err := v.submit(ctx, page, page, url.Values{"qty-0001": {"1"}})
	if err != nil {
		return fmt.Errorf("choose a ticket: %w", err)
	}
	if !strings.HasSuffix(to, "/checkout/seats") {
		return fmt.Errorf("choose a ticket for %d: sent to %q", session, to)
	}
	return nil
}

// startPayment takes a visit on the seat page through details to the payment provider and
// returns the provider's page.
func (v *visitor) startPayment(ctx context.Context) (string, error) {
	doc, err := v.page(ctx, "/checkout/seats")
	if err != nil {
		return "", err
	}
	seats := url.Values{}
	doc.Find(`[data-testid="seatmap"] input[name="seat"]:checked`).Each(func(_ int, s *goquery.Selection) {
		val, _ := s.Attr("value")
		seats.Add("seat", val)
	})
	if _, err := v.submit(ctx, "/checkout/seats", "/checkout/seats", seats); err != nil {
		return "", fmt.Errorf("seats: %w", err)
	}
	if _, err := v.submit(ctx, "/checkout/details", "/checkout/details", url.Values{"name": {"Load Test"}, "email": {"load@example.com"}}); err != nil {
		return "", fmt.Errorf("details: %w", err)
	}
	hosted, err := v.submit(ctx, "/checkout/pay", "/checkout", nil)
	if err != nil {
		return "", fmt.Errorf("pay: %w", err)
	}
	return hosted, nil
}

// payAndReturn pays on the provider's page and comes back to the return page; it returns the
// URL the return page polls. (The service gives up waiting a minute after the return.)
func (v *visitor) payAndReturn(ctx context.Context, hosted string) (string, error) {
	if _, err := v.page(ctx, hosted); err != nil {
		return "", fmt.Errorf("provider page: %w", err)
	}
	resp, body, err := v.do(ctx, http.MethodPost, hosted, url.Values{"action": {"pay"}})
	if err != nil {
		return "", err
	}
	ret := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(ret, "/checkout/payments/") {
		return "", fmt.Errorf("provider: %d to %q: %.300s", resp.StatusCode, ret, body)
	}
	landing, err := v.page(ctx, ret)
	if err != nil {
		return "", fmt.Errorf("return page: %w", err)
	}
	poll, ok := landing.Find(`[data-testid="poller"]`).Attr("hx-get")
	if !ok {
		return "", fmt.Errorf("the return page does not poll")
	}
	return poll, nil
}

// toProvider chooses one ticket for the session and takes the visit through seats and details
// to the payment provider; it returns the provider's page.
func (v *visitor) toProvider(ctx context.Context, session int) (string, error) {
	if err := v.chooseTicket(ctx, session); err != nil {
		return "", err
	}
	return v.startPayment(ctx)
}

// returnPoll pays on the provider's page, comes back to the return page and returns the
// visitor's GET of that page's poll as htmx sends it, without what it shows (answeredAtOnce).
func (v *visitor) returnPoll(ctx context.Context, hosted string) (target, error) {
	poll, err := v.payAndReturn(ctx, hosted)
	if err != nil {
		return target{}, err
	}
	return v.target(answeredAtOnce(poll), http.Header{"Hx-Request": {"true"}}), nil
}

// answeredAtOnce is the page's poll URL without what the page shows (PollShownParam). The
// page's own poll names the answer it shows, and the server holds such a poll until its next
// read of the order (about one poll interval: the confirmation delay TestBenchConfirmationDelay measures).
// The load tool measures the server's work per poll, so it asks without it: that is answered
// at once from the poller's last read, like a page's first poll.
func answeredAtOnce(poll string) string {
	u, err := url.Parse(poll)
	if err != nil {
		return poll
	}
	q := u.Query()
	q.Del(checkoutview.PollShownParam)
	u.RawQuery = q.Encode()
	return u.String()
}
