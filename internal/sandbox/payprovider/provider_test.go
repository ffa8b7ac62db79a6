package payprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const testKey = "test-key"

var testNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

type env struct {
	t   *testing.T
	p   *Provider
	srv *httptest.Server
	c   *http.Client
}

// newEnv serves a Provider under /pay of a test server, as the sandbox does.
func newEnv(t *testing.T) *env {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	p := New(Options{PublicURL: base + "/pay/", APIKey: testKey, Now: func() time.Time { return testNow }})
	mux := http.NewServeMux()
	mux.Handle("/pay/", http.StripPrefix("/pay", p.Handler()))
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &env{t: t, p: p, srv: srv, c: c}
}

// call makes an API call with the given Authorization value and JSON body
// (a string is sent as is) and decodes a JSON object answer.
func (e *env) call(method, path, auth string, body any) (int, map[string]any) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = strings.NewReader(string(raw))
	}
	req, err := http.NewRequest(method, e.srv.URL+"/pay"+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		e.t.Fatalf("%s %s: decoding answer: %v", method, path, err)
	}
	return res.StatusCode, out
}

func (e *env) api(method, path string, body any) (int, map[string]any) {
	e.t.Helper()
	return e.call(method, path, "Bearer "+testKey, body)
}

func createBodyFor(amount int64, key string) map[string]any {
	return map[string]any{
		"amountInCents": amount, "currency": "EUR", "returnUrl": "https://shop.example/return?order=42",
		"idempotencyKey": key, "reference": "BOOKING-42", "description": "2 tickets",
	}
}

// createPayment creates a pending payment through the API.
func (e *env) createPayment(amount int64) map[string]any {
	e.t.Helper()
	st, out := e.api("POST", "/api/payments", createBodyFor(amount, ""))
	if st != http.StatusCreated {
		e.t.Fatalf("create: status %d %v", st, out)
	}
	return out
}

func TestCreate(t *testing.T) {
	e := newEnv(t)
	st, first := e.api("POST", "/api/payments", createBodyFor(500, "key-1"))
	if st != http.StatusCreated {
		t.Fatalf("create: status %d %v", st, first)
	}
	id, _ := first["id"].(string)
	want := map[string]any{
		"status": "pending", "amountInCents": 500.0, "currency": "EUR",
		"hostedUrl": e.srv.URL + "/pay/checkout/" + id, "returnUrl": "https://shop.example/return?order=42",
		"reference": "BOOKING-42", "description": "2 tickets", "cardNumberMasked": "", "cardType": "",
		"refundedInCents": 0.0, "createdAt": "2026-03-14T15:09:26Z",
	}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s = %#v, want %#v", k, first[k], v)
		}
	}
	if !strings.HasPrefix(id, "pay_") || len(id) != 4+32 {
		t.Errorf("id %q", id)
	}
	if tok, _ := first["token"].(string); len(tok) < 32 {
		t.Errorf("token %q", tok)
	}

	tests := []struct {
		name       string
		body       any
		wantStatus int
		wantError  string
		sameID     bool
	}{
		{"idempotent repeat", createBodyFor(500, "key-1"), http.StatusOK, "", true},
		{"conflicting repeat", createBodyFor(600, "key-1"), http.StatusConflict, "idempotency_conflict", false},
		{"other key", createBodyFor(500, "key-2"), http.StatusCreated, "", false},
		{"no key", createBodyFor(500, ""), http.StatusCreated, "", false},
		{"zero amount", createBodyFor(0, ""), http.StatusBadRequest, "invalid_request", false},
		{"negative amount", createBodyFor(-5, ""), http.StatusBadRequest, "invalid_request", false},
		{"bad currency", `{"amountInCents":5,"currency":"EU1","returnUrl":"https://x.example/"}`, http.StatusBadRequest, "invalid_request", false},
		{"long currency", `{"amountInCents":5,"currency":"EURO","returnUrl":"https://x.example/"}`, http.StatusBadRequest, "invalid_request", false},
		{"relative returnUrl", `{"amountInCents":5,"currency":"EUR","returnUrl":"/return"}`, http.StatusBadRequest, "invalid_request", false},
		{"ftp returnUrl", `{"amountInCents":5,"currency":"EUR","returnUrl":"ftp://x.example/"}`, http.StatusBadRequest, "invalid_request", false},
		{"unknown field", `{"amount":5,"currency":"EUR","returnUrl":"https://x.example/"}`, http.StatusBadRequest, "invalid_request", false},
		{"malformed", `{"amountInCents":`, http.StatusBadRequest, "invalid_request", false},
		{"fractional amount", `{"amountInCents":5.5,"currency":"EUR","returnUrl":"https://x.example/"}`, http.StatusBadRequest, "invalid_request", false},
		{"trailing data", `{"amountInCents":5,"currency":"EUR","returnUrl":"https://x.example/"} {}`, http.StatusBadRequest, "invalid_request", false},
		{"too large", `{"description":"` + strings.Repeat("x", 70<<10) + `"}`, http.StatusRequestEntityTooLarge, "request_too_large", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, out := e.api("POST", "/api/payments", tc.body)
			if st != tc.wantStatus {
				t.Fatalf("status %d, want %d (%v)", st, tc.wantStatus, out)
			}
			if tc.wantError != "" {
				if out["error"] != tc.wantError || out["message"] == "" {
					t.Errorf("error body %v, want error %q with a message", out, tc.wantError)
				}
				return
			}
			if (out["id"] == id) != tc.sameID {
				t.Errorf("id %v, first id %s, want same=%v", out["id"], id, tc.sameID)
			}
		})
	}
}

func TestCreateGoAPI(t *testing.T) {
	p := New(Options{PublicURL: "http://127.0.0.1:9090/pay"})
	req := CreateRequest{AmountInCents: 700, Currency: "eur", ReturnURL: "http://localhost/r", IdempotencyKey: "k"}
	a, err := p.Create(req)
	if err != nil {
		t.Fatal(err)
	}
	if a.Currency != "EUR" || a.Status != StatusPending || a.CreatedAt.IsZero() {
		t.Errorf("payment %+v", a)
	}
	if got := p.HostedURL(a.ID); got != "http://127.0.0.1:9090/pay/checkout/"+a.ID {
		t.Errorf("HostedURL %q", got)
	}
	b, err := p.Create(req)
	if err != nil || b.ID != a.ID || b.Token != a.Token {
		t.Errorf("repeat: %+v %v, want the first payment", b, err)
	}
	req.AmountInCents = 701
	if _, err := p.Create(req); !errors.Is(err, ErrIdempotencyConflict) {
		t.Errorf("conflict: err %v", err)
	}
	if _, err := p.Create(CreateRequest{AmountInCents: 1, Currency: "EUR", ReturnURL: "nope"}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("invalid: err %v", err)
	}
}

func TestAuth(t *testing.T) {
	e := newEnv(t)
	id := e.createPayment(100)["id"].(string)
	endpoints := []struct{ method, path string }{
		{"POST", "/api/payments"},
		{"GET", "/api/payments/" + id},
		{"POST", "/api/payments/" + id + "/refunds"},
		{"GET", "/api/payments/" + id + "/refunds"},
		{"GET", "/api/nothing"},
	}
	auths := []struct {
		name, header string
		want         int
		wantError    string
	}{
		{"missing", "", http.StatusUnauthorized, "unauthorized"},
		{"other scheme", "Basic " + testKey, http.StatusUnauthorized, "unauthorized"},
		{"empty bearer", "Bearer ", http.StatusUnauthorized, "unauthorized"},
		{"wrong key", "Bearer sandbox-pay-key", http.StatusForbidden, "forbidden"},
	}
	for _, ep := range endpoints {
		for _, a := range auths {
			t.Run(ep.method+" "+ep.path+" "+a.name, func(t *testing.T) {
				st, out := e.call(ep.method, ep.path, a.header, "{}")
				if st != a.want || out["error"] != a.wantError {
					t.Errorf("got %d %v, want %d %s", st, out, a.want, a.wantError)
				}
			})
		}
	}
	if st, _ := e.call("GET", "/api/payments/"+id, "bearer "+testKey, nil); st != http.StatusOK {
		t.Errorf("lower-case scheme: status %d", st)
	}
	if p := New(Options{}); p.apiKey != DefaultAPIKey {
		t.Errorf("default key %q", p.apiKey)
	}
}

func TestGetAndRouting(t *testing.T) {
	e := newEnv(t)
	created := e.createPayment(250)
	id := created["id"].(string)
	tests := []struct {
		name, method, path string
		want               int
		wantError          string
	}{
		{"existing", "GET", "/api/payments/" + id, http.StatusOK, ""},
		{"unknown", "GET", "/api/payments/pay_00", http.StatusNotFound, "not_found"},
		{"unknown path", "GET", "/api/other", http.StatusNotFound, "not_found"},
		{"wrong method", "DELETE", "/api/payments/" + id, http.StatusMethodNotAllowed, "method_not_allowed"},
		{"list refunds", "GET", "/api/payments/" + id + "/refunds", http.StatusOK, ""},
		{"list refunds unknown", "GET", "/api/payments/pay_00/refunds", http.StatusNotFound, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, out := e.api(tc.method, tc.path, nil)
			if st != tc.want || (tc.wantError != "" && out["error"] != tc.wantError) {
				t.Fatalf("got %d %v, want %d %s", st, out, tc.want, tc.wantError)
			}
		})
	}
	_, got := e.api("GET", "/api/payments/"+id, nil)
	for k, v := range created {
		if got[k] != v {
			t.Errorf("%s: get %#v, create %#v", k, got[k], v)
		}
	}
}

func TestSetFailNext(t *testing.T) {
	e := newEnv(t)
	id := e.createPayment(100)["id"].(string)
	e.p.SetFailNext("get", 2, http.StatusServiceUnavailable)
	e.p.SetFailNext("create", 1, 0)
	for i, want := range []int{503, 503, 200} {
		if st, out := e.api("GET", "/api/payments/"+id, nil); st != want {
			t.Errorf("get %d: status %d %v, want %d", i, st, out, want)
		}
	}
	if st, out := e.api("POST", "/api/payments", createBodyFor(5, "")); st != 500 || out["error"] != "injected_failure" {
		t.Errorf("create: %d %v", st, out)
	}
	if st, _ := e.api("POST", "/api/payments", createBodyFor(5, "")); st != 201 {
		t.Errorf("create after the failure: %d", st)
	}
	e.p.SetFailNext("refund", 1, http.StatusBadGateway)
	e.p.SetFailNext("refund", 0, 0)
	if st, out := e.api("POST", "/api/payments/"+id+"/refunds", map[string]any{"amountInCents": 1}); st != http.StatusConflict {
		t.Errorf("cleared rule: %d %v", st, out)
	}
}

// paidPayment creates a payment and pays it on the hosted page.
func (e *env) paidPayment(amount int64) string {
	e.t.Helper()
	id := e.createPayment(amount)["id"].(string)
	if res := e.postAction(id, "pay"); res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("pay: status %d", res.StatusCode)
	}
	return id
}

func TestRefunds(t *testing.T) {
	e := newEnv(t)
	paid := e.paidPayment(1000)
	pending := e.createPayment(1000)["id"].(string)
	declined := e.createPayment(1000)["id"].(string)
	e.postAction(declined, "decline")

	var firstRefundID string
	steps := []struct {
		name        string
		id          string
		amount      int64
		key         string
		wantStatus  int
		wantError   string
		wantPayment Status
		wantTotal   int64
	}{
		{"partial", paid, 300, "r1", 201, "", StatusPartiallyRefunded, 300},
		{"idempotent repeat", paid, 300, "r1", 200, "", StatusPartiallyRefunded, 300},
		{"repeat key, other amount", paid, 50, "r1", 200, "", StatusPartiallyRefunded, 300},
		{"exceeding", paid, 701, "r2", 422, "amount_exceeds_refundable", StatusPartiallyRefunded, 300},
		{"zero", paid, 0, "r3", 400, "invalid_request", StatusPartiallyRefunded, 300},
		{"rest", paid, 700, "r4", 201, "", StatusRefunded, 1000},
		{"after full refund", paid, 1, "r5", 422, "amount_exceeds_refundable", StatusRefunded, 1000},
		{"unpaid", pending, 100, "r6", 409, "payment_not_paid", StatusPending, 0},
		{"declined", declined, 100, "r7", 409, "payment_not_paid", StatusDeclined, 0},
		{"unknown payment", "pay_00", 100, "r8", 404, "not_found", "", 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			st, out := e.api("POST", "/api/payments/"+s.id+"/refunds", map[string]any{"amountInCents": s.amount, "idempotencyKey": s.key})
			if st != s.wantStatus {
				t.Fatalf("status %d %v, want %d", st, out, s.wantStatus)
			}
			if s.wantError != "" {
				if out["error"] != s.wantError {
					t.Errorf("error %v, want %s", out["error"], s.wantError)
				}
			} else {
				rid, _ := out["id"].(string)
				if !strings.HasPrefix(rid, "rf_") || out["paymentId"] != s.id || out["status"] != "succeeded" {
					t.Errorf("refund %v", out)
				}
				if s.key == "r1" {
					if firstRefundID == "" {
						firstRefundID = rid
					} else if rid != firstRefundID || out["amountInCents"] != 300.0 {
						t.Errorf("repeat gave %v, want the first refund %s", out, firstRefundID)
					}
				}
			}
			if s.wantPayment == "" {
				return
			}
			pay, _ := e.p.Get(s.id)
			if pay.Status != s.wantPayment || pay.RefundedInCents != s.wantTotal {
				t.Errorf("payment %s / %d, want %s / %d", pay.Status, pay.RefundedInCents, s.wantPayment, s.wantTotal)
			}
		})
	}
	_, list := e.api("GET", "/api/payments/"+paid+"/refunds", nil)
	if rs, _ := list["refunds"].([]any); len(rs) != 2 {
		t.Errorf("refund list %v, want 2 refunds", list)
	}
}

func TestConcurrentRefunds(t *testing.T) {
	e := newEnv(t)
	const amount, each, workers = 1000, 30, 50
	e.p.SeedPaid("pay_concurrent", amount, "EUR", "************1111", "MASTERCARD")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		codes   = map[int]int{}
		granted int64
	)
	for i := range workers {
		wg.Go(func() {
			st, out := e.api("POST", "/api/payments/pay_concurrent/refunds", map[string]any{"amountInCents": each, "idempotencyKey": fmt.Sprint("k", i)})
			mu.Lock()
			defer mu.Unlock()
			codes[st]++
			if st == http.StatusCreated {
				granted += int64(out["amountInCents"].(float64))
			}
		})
	}
	wg.Wait()
	if granted > amount || codes[201] != amount/each || codes[422] != workers-amount/each {
		t.Errorf("granted %d cents, codes %v", granted, codes)
	}
	pay, _ := e.p.Get("pay_concurrent")
	if pay.RefundedInCents != granted || pay.Status != StatusPartiallyRefunded {
		t.Errorf("payment refunded %d (%s), granted %d", pay.RefundedInCents, pay.Status, granted)
	}

	// The same key from many goroutines refunds once.
	e.p.SeedPaid("pay_samekey", amount, "EUR", "", "")
	ids := make(chan string, workers)
	for range workers {
		wg.Go(func() {
			rf, err := e.p.Refund("pay_samekey", 100, "same")
			if err != nil {
				t.Error(err)
			}
			ids <- rf.ID
		})
	}
	wg.Wait()
	close(ids)
	first := <-ids
	for id := range ids {
		if id != first {
			t.Fatalf("refund ids differ: %s %s", first, id)
		}
	}
	if pay, _ := e.p.Get("pay_samekey"); pay.RefundedInCents != 100 {
		t.Errorf("refunded %d, want 100", pay.RefundedInCents)
	}
}

func TestSubscribe(t *testing.T) {
	e := newEnv(t)
	var (
		mu     sync.Mutex
		events []string
	)
	e.p.Subscribe(func(p Payment) {
		// Runs outside the provider's lock: calling back in must not deadlock.
		cur, _ := e.p.Get(p.ID)
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fmt.Sprintf("%s/%d/%s", p.Status, p.RefundedInCents, cur.Status))
	})
	id := e.createPayment(500)["id"].(string)
	e.postAction(id, "pay")
	e.postAction(id, "cancel") // already decided: no change, no event
	for _, r := range []struct {
		amount int64
		key    string
	}{{200, "a"}, {200, "a"}, {100, "b"}, {200, "c"}, {1, "d"}} {
		e.api("POST", "/api/payments/"+id+"/refunds", map[string]any{"amountInCents": r.amount, "idempotencyKey": r.key})
	}
	other := e.createPayment(500)["id"].(string)
	e.postAction(other, "decline")

	want := []string{
		"paid/0/paid",
		"partially_refunded/200/partially_refunded",
		"partially_refunded/300/partially_refunded",
		"refunded/500/refunded",
		"declined/0/declined",
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(events, " ") != strings.Join(want, " ") {
		t.Errorf("events\n got %v\nwant %v", events, want)
	}
}

func TestSeedPaid(t *testing.T) {
	e := newEnv(t)
	seeded := e.p.SeedPaid("pay_seed1", 2000, "eur", "************1111", "MASTERCARD")
	if seeded.Status != StatusPaid || seeded.Currency != "EUR" || seeded.Token == "" {
		t.Fatalf("seeded %+v", seeded)
	}
	if again := e.p.SeedPaid("pay_seed1", 1, "USD", "", ""); again != seeded {
		t.Errorf("reseeding changed the payment: %+v", again)
	}
	rf, err := e.p.Refund("pay_seed1", 500, "")
	if err != nil || rf.AmountInCents != 500 || rf.Status != RefundSucceeded {
		t.Fatalf("refund %+v %v", rf, err)
	}
	st, out := e.api("GET", "/api/payments/pay_seed1", nil)
	if st != 200 || out["status"] != "partially_refunded" || out["refundedInCents"] != 500.0 || out["cardType"] != "MASTERCARD" {
		t.Errorf("get %d %v", st, out)
	}
	if st, out := e.api("POST", "/api/payments/pay_seed1/refunds", map[string]any{"amountInCents": 1500, "idempotencyKey": "x"}); st != 201 || out["amountInCents"] != 1500.0 {
		t.Errorf("refund rest: %d %v", st, out)
	}
	if _, err := e.p.Refund("pay_seed1", 1, ""); !errors.Is(err, ErrExceedsRefundable) {
		t.Errorf("over-refund: %v", err)
	}
	if _, err := e.p.Refund("pay_none", 1, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	pending := e.createPayment(100)["id"].(string)
	if _, err := e.p.Refund(pending, 1, ""); !errors.Is(err, ErrNotPaid) {
		t.Errorf("pending: %v", err)
	}
	if gen := e.p.SeedPaid("", 100, "EUR", "", ""); !strings.HasPrefix(gen.ID, "pay_") {
		t.Errorf("generated id %q", gen.ID)
	}
	// A seeded payment has no return URL: its hosted page still answers.
	if res := e.postAction("pay_seed1", "pay"); res.StatusCode != http.StatusOK {
		t.Errorf("POST on a seeded payment: %d", res.StatusCode)
	}
}

// postAction submits the hosted page's form.
func (e *env) postAction(id, action string) *http.Response {
	e.t.Helper()
	res, err := e.c.PostForm(e.srv.URL+"/pay/checkout/"+id, url.Values{"action": {action}})
	if err != nil {
		e.t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func TestAdoptUnknownPayments(t *testing.T) {
	strict := New(Options{PublicURL: "http://x/pay"})
	if _, err := strict.Refund("pay_elsewhere", 500, "k1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("strict provider refunded an unknown payment: %v", err)
	}
	standIn := New(Options{PublicURL: "http://x/pay", AdoptUnknownPayments: true})
	rf, err := standIn.Refund("pay_elsewhere", 500, "k1")
	if err != nil || rf.Status != RefundSucceeded {
		t.Fatalf("stand-in refund: %+v %v", rf, err)
	}
	again, err := standIn.Refund("pay_elsewhere", 500, "k1")
	if err != nil || again.ID != rf.ID {
		t.Fatalf("repeat with the same key: %+v %v", again, err)
	}
	if p, ok := standIn.Get("pay_elsewhere"); !ok || !strings.Contains(p.Reference, "adopted") || p.Status != StatusRefunded {
		t.Fatalf("adopted payment %+v", p)
	}
}
