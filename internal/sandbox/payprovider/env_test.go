package payprovider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/stripe/stripe-go/v85"
)

const (
	testKey    = "sk_test_unit"
	testSecret = "whsec_unit"
)

var testNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// hook is a webhook receiver that records what it gets and can be told to
// fail.
type hook struct {
	mu       sync.Mutex
	got      []hookReq
	failNext int
}

type hookReq struct {
	header  http.Header
	payload []byte
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, hookReq{r.Header.Clone(), b})
	if h.failNext > 0 {
		h.failNext--
		http.Error(w, "not now", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (h *hook) requests() []hookReq {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookReq(nil), h.got...)
}

type env struct {
	t     *testing.T
	p     *Provider
	srv   *httptest.Server
	c     *http.Client // does not follow redirects
	sc    *stripe.Client
	clock *testclock.Clock
	hook  *hook
}

// newEnv serves a Provider under /pay of a test server and its API also at
// the root (/v1/…), as the standalone sandbox does, with a webhook receiver at
// /hook of the same server, and a stripe-go client pointed at the root:
// stripe-go v85 refuses a backend URL with a path (see
// TestStripeGoRefusesAPathPrefix).
func newEnv(t *testing.T, mod ...func(*Options)) *env {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	clk := testclock.New(testNow)
	opts := Options{PublicURL: base + "/pay/", APIKey: testKey, Now: clk.Now, WebhookURL: base + "/hook",
		WebhookSecret: testSecret, WebhookBackoff: 5 * time.Millisecond}
	for _, fn := range mod {
		fn(&opts)
	}
	p := New(opts)
	h := &hook{}
	mux := http.NewServeMux()
	mux.Handle("/pay/", http.StripPrefix("/pay", p.Handler()))
	mux.Handle("/v1/", p.Handler())
	mux.Handle("/hook", h)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(func() {
		p.Close()
		srv.Close()
	})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &env{t: t, p: p, srv: srv, c: c, sc: stripeClient(srv.URL, testKey, 0), clock: clk, hook: h}
}

// stripeClient is stripe-go pointed at the sandbox, as the service's adapter
// will be.
func stripeClient(backendURL, key string, retries int64) *stripe.Client {
	return stripeClientWith(backendURL, key, retries, nil)
}

func stripeClientWith(backendURL, key string, retries int64, hc *http.Client) *stripe.Client {
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(backendURL),
		MaxNetworkRetries: stripe.Int64(retries),
		HTTPClient:        hc,
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})))
}

var ctx = context.Background()

// sessionParams are the parameters the adapter sends, for amount cents.
func sessionParams(amount int64) *stripe.CheckoutSessionCreateParams {
	p := &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String("payment"),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String("eur"),
				UnitAmount:  stripe.Int64(amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Booking 100002: edit")},
			},
			Quantity: stripe.Int64(1),
		}},
		SuccessURL:        stripe.String("https://shop.example/booking/edit/status/led_1?session_id={CHECKOUT_SESSION_ID}"),
		CancelURL:         stripe.String("https://shop.example/booking/edit/cancelled?session_id={CHECKOUT_SESSION_ID}"),
		ClientReferenceID: stripe.String("led_1"),
		Metadata:          map[string]string{"ledger_entry": "led_1"},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{Metadata: map[string]string{"booking": "100002"}},
	}
	return p
}

// session creates a Checkout Session through stripe-go.
func (e *env) session(amount int64) *stripe.CheckoutSession {
	e.t.Helper()
	s, err := e.sc.V1CheckoutSessions.Create(ctx, sessionParams(amount))
	if err != nil {
		e.t.Fatalf("create session: %v", err)
	}
	return s
}

// press posts the hosted page's form of a session or connector payment.
func (e *env) press(id string, form url.Values) (*http.Response, string) {
	e.t.Helper()
	res, err := e.c.PostForm(e.srv.URL+"/pay/checkout/"+id, form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// paid creates a session and pays it on the hosted page with card.
func (e *env) paid(amount int64, card string) *stripe.CheckoutSession {
	e.t.Helper()
	s := e.session(amount)
	if res, body := e.press(s.ID, url.Values{"action": {"pay"}, "card": {card}}); res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("pay: %d %s", res.StatusCode, body)
	}
	return e.retrieve(s.ID, "payment_intent.latest_charge")
}

func (e *env) retrieve(id string, expand ...string) *stripe.CheckoutSession {
	e.t.Helper()
	params := &stripe.CheckoutSessionRetrieveParams{}
	for _, x := range expand {
		params.AddExpand(x)
	}
	s, err := e.sc.V1CheckoutSessions.Retrieve(ctx, id, params)
	if err != nil {
		e.t.Fatalf("retrieve %s: %v", id, err)
	}
	return s
}

func (e *env) getPage(id string) (*http.Response, string) {
	e.t.Helper()
	res, err := e.c.Get(e.srv.URL + "/pay/checkout/" + id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// raw sends an API request without stripe-go and decodes the JSON answer.
func (e *env) raw(method, path, auth string, form url.Values, header ...string) (*http.Response, map[string]any) {
	e.t.Helper()
	var body io.Reader
	target := e.srv.URL + "/pay" + path
	if method == http.MethodGet && form != nil {
		target += "?" + form.Encode()
	} else if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	if id := res.Header.Get("Request-Id"); !strings.HasPrefix(id, "req_") {
		e.t.Fatalf("%s %s: Request-Id %q", method, path, id)
	}
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		e.t.Fatalf("%s %s: decoding answer: %v", method, path, err)
	}
	return res, out
}

// stripeErr unwraps stripe-go's error.
func stripeErr(t *testing.T, err error) *stripe.Error {
	t.Helper()
	var se *stripe.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *stripe.Error", err, err)
	}
	return se
}

// flush waits for the webhook deliveries under way.
func (e *env) flush() {
	e.t.Helper()
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := e.p.Flush(c); err != nil {
		e.t.Fatalf("flush: %v", err)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// validSessionForm is a session create request in Stripe's form encoding.
func validSessionForm() url.Values {
	return url.Values{
		"mode":                                   {"payment"},
		"success_url":                            {"https://shop.example/ok?cs={CHECKOUT_SESSION_ID}"},
		"cancel_url":                             {"https://shop.example/cancel"},
		"line_items[0][price_data][currency]":    {"eur"},
		"line_items[0][price_data][unit_amount]": {"1325"},
		"line_items[0][price_data][product_data][name]": {"2 tickets"},
		"line_items[0][quantity]":                       {"1"},
	}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "\x00" {
			out.Del(kv[i])
			continue
		}
		out.Set(kv[i], kv[i+1])
	}
	return out
}
