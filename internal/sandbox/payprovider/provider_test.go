package payprovider

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// The ticketing sandbox's own redirect payments (Go API and their page).

func connectorRequest(amount int64, key string) CreateRequest {
	return CreateRequest{AmountInCents: amount, Currency: "eur", ReturnURL: "https://shop.example/return?order=42",
		IdempotencyKey: key, Reference: "BOOKING-42", Description: "2 tickets"}
}

func TestConnectorCreate(t *testing.T) {
	p := New(Options{PublicURL: "http://127.0.0.1:9090/pay"})
	a, err := p.Create(connectorRequest(700, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.ID, "pi_") || a.Currency != "EUR" || a.Status != StatusPending || a.CreatedAt.IsZero() || len(a.Token) < 32 {
		t.Errorf("payment %+v", a)
	}
	if got := p.HostedURL(a.ID); got != "http://127.0.0.1:9090/pay/checkout/"+a.ID {
		t.Errorf("HostedURL %q", got)
	}
	if pi, ok := p.PaymentIntent(a.ID); !ok || pi.Status != IntentRequiresPaymentMethod || pi.Amount != 700 || pi.Currency != "eur" {
		t.Errorf("its payment intent %+v", pi)
	}
	b, err := p.Create(connectorRequest(700, "k"))
	if err != nil || b.ID != a.ID || b.Token != a.Token {
		t.Errorf("repeat: %+v %v, want the first payment", b, err)
	}
	if _, err := p.Create(connectorRequest(701, "k")); !errors.Is(err, ErrIdempotencyConflict) {
		t.Errorf("conflict: err %v", err)
	}
	for _, bad := range []CreateRequest{
		{AmountInCents: 0, Currency: "EUR", ReturnURL: "https://x.example/"},
		{AmountInCents: 1, Currency: "EURO", ReturnURL: "https://x.example/"},
		{AmountInCents: 1, Currency: "EUR", ReturnURL: "/return"},
		{AmountInCents: 1, Currency: "EUR", ReturnURL: "ftp://x.example/"},
	} {
		if _, err := p.Create(bad); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
}

func TestConnectorPage(t *testing.T) {
	e := newEnv(t)
	pay, err := e.p.Create(CreateRequest{AmountInCents: 123450, Currency: "EUR", ReturnURL: "https://shop.example:8443/return",
		Reference: "BOOKING-<42>", Description: "2 tickets"})
	if err != nil {
		t.Fatal(err)
	}
	res, body := e.getPage(pay.ID)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	for k, v := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(body)
	if style == nil {
		t.Fatal("no <style> element")
	}
	sum := sha256.Sum256([]byte(style[1]))
	for _, want := range []string{"default-src 'none'", "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'", "form-action 'self' https://shop.example:8443"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for _, want := range []string{
		`<html lang="en">`, `<title>Sandbox payment</title>`, `<h1>Sandbox payment</h1>`, `BOOKING-&lt;42&gt;`, `€1,234.50`, `Test provider.`,
		`<form method="post" action="` + pay.ID + `">`,
		`<button type="submit" name="action" value="pay" class="pay">Pay</button>`,
		`<button type="submit" name="action" value="decline">Decline</button>`,
		`<button type="submit" name="action" value="cancel">Cancel</button>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "src=", "<link", "style=", "http://", "https://", `name="card"`} {
		if strings.Contains(body, banned) {
			t.Errorf("page contains %q", banned)
		}
	}
	res, body = e.getPage("pi_unknown")
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "Payment not found") || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("unknown payment: %d %q", res.StatusCode, body)
	}
	// A seeded intent has no page of its own.
	e.p.SeedPaid("pi_seed1", 100, "eur", "", "")
	if res, _ := e.getPage("pi_seed1"); res.StatusCode != http.StatusNotFound {
		t.Errorf("seeded intent page: %d", res.StatusCode)
	}
	req, _ := http.NewRequest("PUT", e.srv.URL+"/pay/checkout/"+pay.ID, nil)
	if res, err := e.c.Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %v %v", res, err)
	} else {
		res.Body.Close()
	}
}

func TestConnectorActions(t *testing.T) {
	tests := []struct {
		action       string
		wantStatus   Status
		wantCard     string
		wantPIStatus string
	}{
		{"pay", StatusPaid, "************4242", IntentSucceeded},
		{"decline", StatusDeclined, "", IntentCanceled},
		{"cancel", StatusCancelled, "", IntentCanceled},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			e := newEnv(t)
			before, _ := e.p.Create(connectorRequest(500, ""))
			res, _ := e.press(before.ID, url.Values{"action": {tc.action}})
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("status %d", res.StatusCode)
			}
			loc, err := url.Parse(res.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			if got := loc.Scheme + "://" + loc.Host + loc.Path; got != "https://shop.example/return" {
				t.Errorf("redirect to %s", got)
			}
			if want := "order=42&token=" + before.Token + "&status=" + string(tc.wantStatus); loc.RawQuery != want {
				t.Errorf("query %q, want %q", loc.RawQuery, want)
			}
			after, _ := e.p.Get(before.ID)
			if after.Status != tc.wantStatus || after.CardNumberMasked != tc.wantCard {
				t.Errorf("payment %s card %q", after.Status, after.CardNumberMasked)
			}
			pi, err := e.sc.V1PaymentIntents.Retrieve(ctx, before.ID, &stripe.PaymentIntentRetrieveParams{Expand: []*string{stripe.String("latest_charge")}})
			if err != nil || string(pi.Status) != tc.wantPIStatus {
				t.Fatalf("payment intent over the API: %+v %v", pi, err)
			}
			if tc.action == "pay" && (pi.LatestCharge == nil || pi.LatestCharge.PaymentMethodDetails.Card.Last4 != "4242") {
				t.Errorf("charge %+v", pi.LatestCharge)
			}
			for _, again := range []string{"pay", "decline", "cancel"} {
				res, _ := e.press(before.ID, url.Values{"action": {again}})
				if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != loc.String() {
					t.Errorf("repeat %s: %d %s", again, res.StatusCode, res.Header.Get("Location"))
				}
			}
			if now, _ := e.p.Get(before.ID); now != after {
				t.Errorf("repeat changed the payment: %+v", now)
			}
			if _, body := e.getPage(before.ID); strings.Contains(body, "<form") || !strings.Contains(body, "This payment is "+string(tc.wantStatus)) {
				t.Errorf("decided page: %s", body)
			}
		})
	}
	e := newEnv(t)
	pay, _ := e.p.Create(connectorRequest(500, ""))
	for _, action := range []string{"refund", ""} {
		if res, _ := e.press(pay.ID, url.Values{"action": {action}}); res.StatusCode != http.StatusBadRequest || res.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("action %q: %d", action, res.StatusCode)
		}
	}
	if res, _ := e.press("pi_unknown", url.Values{"action": {"pay"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown payment: %d", res.StatusCode)
	}
}

func TestSubscribe(t *testing.T) {
	e := newEnv(t)
	var (
		mu     sync.Mutex
		events []string
	)
	e.p.Subscribe(func(p Payment) {
		cur, _ := e.p.Get(p.ID) // runs outside the provider's lock: calling back in must not deadlock
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fmt.Sprintf("%s/%d/%s", p.Status, p.RefundedInCents, cur.Status))
	})
	pay, _ := e.p.Create(connectorRequest(500, ""))
	e.press(pay.ID, url.Values{"action": {"pay"}})
	e.press(pay.ID, url.Values{"action": {"cancel"}}) // already decided: no change, no event
	// Refunds through the Stripe API (as the service refunds a booking's payment) reach the connector.
	for _, r := range []struct {
		amount int64
		key    string
	}{{200, "a"}, {200, "a"}, {100, "b"}, {200, "c"}, {1, "d"}} {
		params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pay.ID), Amount: stripe.Int64(r.amount)}
		params.SetIdempotencyKey(r.key)
		_, _ = e.sc.V1Refunds.Create(ctx, params)
	}
	other, _ := e.p.Create(connectorRequest(500, ""))
	e.press(other.ID, url.Values{"action": {"decline"}})
	e.paid(1000, "4242424242424242") // Checkout Sessions are not connector payments
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
	seeded := e.p.SeedPaid("pi_seed100001", 2000, "EUR", "************5454", "MASTERCARD")
	if seeded.Status != IntentSucceeded || seeded.Currency != "eur" || seeded.AmountReceived != 2000 || seeded.LatestChargeID == "" {
		t.Fatalf("seeded %+v", seeded)
	}
	if again := e.p.SeedPaid("pi_seed100001", 1, "USD", "", ""); again.Amount != 2000 || again.LatestChargeID != seeded.LatestChargeID {
		t.Errorf("reseeding changed the intent: %+v", again)
	}
	pi, err := e.sc.V1PaymentIntents.Retrieve(ctx, "pi_seed100001", &stripe.PaymentIntentRetrieveParams{Expand: []*string{stripe.String("latest_charge")}})
	if err != nil || pi.Status != "succeeded" || pi.LatestCharge.PaymentMethodDetails.Card.Brand != "mastercard" || pi.LatestCharge.PaymentMethodDetails.Card.Last4 != "5454" {
		t.Fatalf("over the API: %+v %v", pi, err)
	}
	if view, _ := e.p.Get("pi_seed100001"); view.Status != StatusPaid || view.CardNumberMasked != "************5454" || view.CardType != "MASTERCARD" || view.AmountInCents != 2000 {
		t.Errorf("view %+v", view)
	}
	rf, err := e.p.Refund("pi_seed100001", 500, "k")
	if err != nil || rf.Amount != 500 || rf.Status != RefundSucceeded || !strings.HasPrefix(rf.ID, "re_") {
		t.Fatalf("refund %+v %v", rf, err)
	}
	if again, err := e.p.Refund("pi_seed100001", 500, "k"); err != nil || again.ID != rf.ID {
		t.Errorf("repeated key: %+v %v", again, err)
	}
	if view, _ := e.p.Get("pi_seed100001"); view.Status != StatusPartiallyRefunded || view.RefundedInCents != 500 {
		t.Errorf("view after refund %+v", view)
	}
	if _, err := e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_seed100001")}); err != nil {
		t.Errorf("refund the rest: %v", err)
	}
	if list, ok := e.p.Refunds("pi_seed100001"); !ok || len(list) != 2 || list[1].Amount != 1500 {
		t.Errorf("refunds %+v", list)
	}
	pending, _ := e.p.Create(connectorRequest(100, ""))
	for _, tc := range []struct {
		id     string
		amount int64
		want   error
	}{
		{"pi_seed100001", 1, ErrExceedsRefundable},
		{"pi_none", 1, ErrNotFound},
		{pending.ID, 1, ErrNotPaid},
		{"pi_seed100001", 0, ErrInvalidRequest},
	} {
		if _, err := e.p.Refund(tc.id, tc.amount, ""); !errors.Is(err, tc.want) {
			t.Errorf("Refund(%s, %d): %v, want %v", tc.id, tc.amount, err, tc.want)
		}
	}
	if gen := e.p.SeedPaid("", 100, "EUR", "", ""); !strings.HasPrefix(gen.ID, "pi_") {
		t.Errorf("generated id %q", gen.ID)
	}
	for typ, want := range map[string]string{"VISA": "visa", "MASTERCARD": "mastercard", "AMEX": "amex", "American Express": "amex", "": "visa", "GIFTCARD": "unknown"} {
		if got := brandFromType(typ); got != want {
			t.Errorf("brandFromType(%q) = %q, want %q", typ, got, want)
		}
	}
}

func TestAdoptUnknownPayments(t *testing.T) {
	strict := newEnv(t)
	_, err := strict.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_elsewhere"), Amount: stripe.Int64(500)})
	if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != stripe.ErrorCodeResourceMissing || se.Param != "payment_intent" {
		t.Fatalf("strict provider: %+v", se)
	}
	e := newEnv(t, func(o *Options) { o.AdoptUnknownPayments = true })
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_elsewhere"), Amount: stripe.Int64(500)}
	params.SetIdempotencyKey("k1")
	rf, err := e.sc.V1Refunds.Create(ctx, params)
	if err != nil || rf.Status != "succeeded" || rf.Amount != 500 {
		t.Fatalf("stand-in refund: %+v %v", rf, err)
	}
	if again, err := e.sc.V1Refunds.Create(ctx, params); err != nil || again.ID != rf.ID {
		t.Fatalf("repeat with the same key: %+v %v", again, err)
	}
	pi, _ := e.p.PaymentIntent("pi_elsewhere")
	if pi.Status != IntentSucceeded || pi.Metadata["sandbox_adopted"] != "true" || pi.Amount != 500 {
		t.Errorf("adopted intent %+v", pi)
	}
	_, err = e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_elsewhere")})
	if se := stripeErr(t, err); se.Code != stripe.ErrorCodeChargeAlreadyRefunded {
		t.Errorf("refund an adopted, refunded intent again: %+v", se)
	}
	// Without an amount or with another prefix there is nothing to adopt.
	for _, p := range []*stripe.RefundCreateParams{
		{PaymentIntent: stripe.String("pi_noamount")},
		{PaymentIntent: stripe.String("pay_old"), Amount: stripe.Int64(5)},
	} {
		if _, err := e.sc.V1Refunds.Create(ctx, p); stripeErr(t, err).Code != stripe.ErrorCodeResourceMissing {
			t.Errorf("%s: %v", *p.PaymentIntent, err)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	tests := []struct {
		cents    int64
		currency string
		want     string
	}{
		{500, "EUR", "€5.00"},
		{5, "EUR", "€0.05"},
		{123456789, "EUR", "€1,234,567.89"},
		{1999, "GBP", "£19.99"},
		{1999, "USD", "US$19.99"},
		{1500, "JPY", "JPY 1,500"},
		{1500, "KWD", "KWD 1.500"},
		{100000, "CHF", "CHF 1,000.00"},
	}
	for _, tc := range tests {
		if got := formatAmount(tc.cents, tc.currency); got != tc.want {
			t.Errorf("formatAmount(%d, %s) = %q, want %q", tc.cents, tc.currency, got, tc.want)
		}
	}
}

func TestGetViews(t *testing.T) {
	e := newEnv(t)
	open := e.session(1500)
	if v, ok := e.p.Get(open.ID); !ok || v.Status != StatusPending || v.AmountInCents != 1500 || v.Currency != "EUR" || v.Token != open.ID || v.Reference != "led_1" {
		t.Errorf("open session %+v", v)
	}
	paid := e.paid(2000, "5555555555554444")
	if _, err := e.p.Refund(paid.PaymentIntent.ID, 500, ""); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{paid.ID, paid.PaymentIntent.ID} {
		v, ok := e.p.Get(id)
		if !ok || v.ID != id || v.Status != StatusPartiallyRefunded || v.RefundedInCents != 500 || v.CardType != "MASTERCARD" || v.CardNumberMasked != "************4444" {
			t.Errorf("Get(%s) = %+v", id, v)
		}
	}
	if _, err := e.sc.V1CheckoutSessions.Expire(ctx, open.ID, nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := e.p.Get(open.ID); v.Status != StatusCancelled {
		t.Errorf("expired session %+v", v)
	}
	if _, ok := e.p.Get("cs_test_nope"); ok {
		t.Error("unknown session found")
	}
}
