package payprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

func TestCreateAndRetrieveSession(t *testing.T) {
	e := newEnv(t)
	params := sessionParams(1325)
	params.LineItems = append(params.LineItems, &stripe.CheckoutSessionCreateLineItemParams{
		PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
			Currency: stripe.String("EUR"), UnitAmount: stripe.Int64(550),
			ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Popcorn")},
		},
		Quantity: stripe.Int64(2),
	})
	params.CustomerEmail = stripe.String("ada@example.com")
	s, err := e.sc.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.ID, "cs_test_") || s.Object != "checkout.session" || s.URL != e.srv.URL+"/pay/checkout/"+s.ID ||
		s.Status != stripe.CheckoutSessionStatusOpen || s.PaymentStatus != stripe.CheckoutSessionPaymentStatusUnpaid ||
		s.AmountTotal != 1325+2*550 || s.Currency != "eur" || s.ClientReferenceID != "led_1" || s.Metadata["ledger_entry"] != "led_1" ||
		s.PaymentIntent != nil || s.Mode != stripe.CheckoutSessionModePayment || s.Livemode || s.CustomerEmail != "ada@example.com" ||
		s.Created != testNow.Unix() || s.ExpiresAt != testNow.Add(24*time.Hour).Unix() || s.SuccessURL != *params.SuccessURL || s.CancelURL != *params.CancelURL {
		t.Fatalf("session %+v", s)
	}
	if s.LastResponse.RequestID == "" || !strings.HasPrefix(s.LastResponse.RequestID, "req_") || s.LastResponse.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", s.LastResponse.Header)
	}
	var raw map[string]any
	if err := json.Unmarshal(s.LastResponse.RawJSON, &raw); err != nil {
		t.Fatal(err)
	}
	if v, ok := raw["payment_intent"]; !ok || v != nil {
		t.Errorf("payment_intent %#v, want null", v)
	}

	for _, expand := range [][]string{nil, {"payment_intent"}, {"payment_intent.latest_charge"}} {
		got := e.retrieve(s.ID, expand...)
		if got.ID != s.ID || got.AmountTotal != s.AmountTotal || got.Status != s.Status || got.PaymentIntent != nil || got.URL != s.URL {
			t.Errorf("retrieve %v: %+v", expand, got)
		}
	}
	_, err = e.sc.V1CheckoutSessions.Retrieve(ctx, "cs_test_nope", nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 404 || se.Type != stripe.ErrorTypeInvalidRequest || se.Code != stripe.ErrorCodeResourceMissing ||
		se.Param != "id" || se.Msg != "No such checkout.session: 'cs_test_nope'" {
		t.Errorf("unknown session: %+v", se)
	}
}

func TestCreateSessionValidation(t *testing.T) {
	e := newEnv(t)
	auth := "Bearer " + testKey
	tests := []struct {
		name       string
		form       url.Values
		status     int
		code       string
		param      string
		msgContain string
	}{
		{"valid", validSessionForm(), 200, "", "", ""},
		{"bracket arrays", with(validSessionForm(), "expand[]", "payment_intent"), 200, "", "", ""},
		{"unknown parameter", with(validSessionForm(), "colour", "red"), 400, "parameter_unknown", "colour", "Received unknown parameter: colour"},
		{"unknown nested parameter", with(validSessionForm(), "line_items[0][price_data][colour]", "red"), 400, "parameter_unknown", "line_items[0][price_data][colour]", ""},
		{"missing mode", with(validSessionForm(), "mode", "\x00"), 400, "parameter_missing", "mode", ""},
		{"subscription", with(validSessionForm(), "mode", "subscription"), 400, "", "mode", ""},
		{"missing line items", url.Values{"mode": {"payment"}, "success_url": {"https://x.example/"}}, 400, "parameter_missing", "line_items", ""},
		{"quantity not an integer", with(validSessionForm(), "line_items[0][quantity]", "two"), 400, "parameter_invalid_integer", "line_items[0][quantity]", "Invalid integer: two"},
		{"quantity zero", with(validSessionForm(), "line_items[0][quantity]", "0"), 400, "", "line_items[0][quantity]", "greater than or equal to 1"},
		{"missing quantity", with(validSessionForm(), "line_items[0][quantity]", "\x00"), 400, "parameter_missing", "line_items[0][quantity]", ""},
		{"unit amount not an integer", with(validSessionForm(), "line_items[0][price_data][unit_amount]", "13.25"), 400, "parameter_invalid_integer", "line_items[0][price_data][unit_amount]", ""},
		{"negative unit amount", with(validSessionForm(), "line_items[0][price_data][unit_amount]", "-1"), 400, "", "line_items[0][price_data][unit_amount]", ""},
		{"missing currency", with(validSessionForm(), "line_items[0][price_data][currency]", "\x00"), 400, "parameter_missing", "line_items[0][price_data][currency]", ""},
		{"bad currency", with(validSessionForm(), "line_items[0][price_data][currency]", "euro"), 400, "", "line_items[0][price_data][currency]", "Invalid currency"},
		{"empty product name", with(validSessionForm(), "line_items[0][price_data][product_data][name]", ""), 400, "parameter_invalid_empty", "line_items[0][price_data][product_data][name]", ""},
		{"price id", with(validSessionForm(), "line_items[0][price]", "price_123"), 400, "resource_missing", "line_items[0][price]", "No such price"},
		{"mixed currencies", with(validSessionForm(), "line_items[1][price_data][currency]", "gbp", "line_items[1][price_data][unit_amount]", "100",
			"line_items[1][price_data][product_data][name]", "x", "line_items[1][quantity]", "1"), 400, "", "line_items[1][price_data][currency]", ""},
		{"below Stripe's minimum", with(validSessionForm(), "line_items[0][price_data][unit_amount]", "49"), 400, "amount_too_small", "line_items", "€0.50"},
		{"missing success_url", with(validSessionForm(), "success_url", "\x00"), 400, "parameter_missing", "success_url", ""},
		{"relative success_url", with(validSessionForm(), "success_url", "/ok"), 400, "url_invalid", "success_url", ""},
		{"bad cancel_url", with(validSessionForm(), "cancel_url", "ftp://x.example/"), 400, "url_invalid", "cancel_url", ""},
		{"bad email", with(validSessionForm(), "customer_email", "not-an-address"), 400, "email_invalid", "customer_email", ""},
		{"expires too soon", with(validSessionForm(), "expires_at", fmt.Sprint(testNow.Add(10*time.Minute).Unix())), 400, "", "expires_at", "30 minutes"},
		{"expires too late", with(validSessionForm(), "expires_at", fmt.Sprint(testNow.Add(25*time.Hour).Unix())), 400, "", "expires_at", "24 hours"},
		{"metadata key too long", with(validSessionForm(), "metadata["+strings.Repeat("k", 41)+"]", "v"), 400, "", "metadata[" + strings.Repeat("k", 41) + "]", ""},
		{"metadata not a hash", with(validSessionForm(), "metadata", "x"), 400, "", "metadata", "Invalid hash"},
		{"unknown expansion", with(validSessionForm(), "expand[0]", "customer"), 400, "", "", "cannot be expanded (customer)"},
		{"client_reference_id too long", with(validSessionForm(), "client_reference_id", strings.Repeat("r", 201)), 400, "", "client_reference_id", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, out := e.raw("POST", "/v1/checkout/sessions", auth, tc.form)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d %v, want %d", res.StatusCode, out, tc.status)
			}
			if tc.status == 200 {
				if out["object"] != "checkout.session" || out["amount_total"] != 1325.0 {
					t.Errorf("session %v", out)
				}
				return
			}
			er, _ := out["error"].(map[string]any)
			msg, _ := er["message"].(string)
			if er["type"] != "invalid_request_error" || msg == "" || !strings.Contains(msg, tc.msgContain) {
				t.Errorf("error %v", er)
			}
			if code, _ := er["code"].(string); code != tc.code {
				t.Errorf("code %q, want %q (%v)", code, tc.code, er)
			}
			if param, _ := er["param"].(string); param != tc.param {
				t.Errorf("param %q, want %q", param, tc.param)
			}
		})
	}

	// stripe-go's own way of sending an unknown parameter.
	params := sessionParams(1000)
	params.AddExtra("shoe_size", "44")
	_, err := e.sc.V1CheckoutSessions.Create(ctx, params)
	if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != stripe.ErrorCodeParameterUnknown || se.Param != "shoe_size" {
		t.Errorf("unknown parameter through stripe-go: %+v", se)
	}
	// A JSON body is not Stripe's v1 API.
	req, _ := http.NewRequest("POST", e.srv.URL+"/pay/v1/checkout/sessions", strings.NewReader(`{"mode":"payment"}`))
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	if res, err := e.c.Do(req); err != nil || res.StatusCode != 400 {
		t.Errorf("JSON body: %v %v", res, err)
	}
}

// verify checks a delivered webhook with stripe-go's webhook package.
func verify(t *testing.T, r hookReq, secret string) stripe.Event {
	t.Helper()
	ev, err := webhook.ConstructEvent(r.payload, r.header.Get("Stripe-Signature"), secret)
	if err != nil {
		t.Fatalf("webhook.ConstructEvent: %v\n%s", err, r.payload)
	}
	return ev
}

func TestPayOnHostedPage(t *testing.T) {
	e := newEnv(t)
	s := e.session(2650)
	res, page := e.getPage(s.ID)
	for _, want := range []string{">Pay</button>", ">Decline</button>", ">Cancel</button>", "€26.50", `value="4242 4242 4242 4242"`, "led_1", "Booking 100002: edit"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://shop.example") {
		t.Errorf("CSP %q", csp)
	}

	res, _ = e.press(s.ID, url.Values{"action": {"pay"}, "card": {"5555 5555 5555 4444"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	if loc := res.Header.Get("Location"); loc != "https://shop.example/booking/edit/status/led_1?session_id="+s.ID {
		t.Errorf("redirect %q", loc)
	}
	got := e.retrieve(s.ID, "payment_intent.latest_charge")
	pi := got.PaymentIntent
	if got.Status != stripe.CheckoutSessionStatusComplete || got.PaymentStatus != stripe.CheckoutSessionPaymentStatusPaid || got.URL != "" || pi == nil {
		t.Fatalf("paid session %+v", got)
	}
	if !strings.HasPrefix(pi.ID, "pi_") || pi.Status != stripe.PaymentIntentStatusSucceeded || pi.Amount != 2650 || pi.AmountReceived != 2650 ||
		pi.Currency != "eur" || pi.Metadata["booking"] != "100002" || pi.LatestCharge == nil {
		t.Fatalf("payment intent %+v", pi)
	}
	ch := pi.LatestCharge
	card := ch.PaymentMethodDetails.Card
	if !strings.HasPrefix(ch.ID, "ch_") || ch.Amount != 2650 || ch.AmountCaptured != 2650 || ch.AmountRefunded != 0 || ch.Refunded || !ch.Paid ||
		ch.Status != stripe.ChargeStatusSucceeded || ch.PaymentIntent.ID != pi.ID || ch.PaymentMethodDetails.Type != "card" ||
		card.Brand != "mastercard" || card.Last4 != "4444" || card.ExpMonth != 12 || card.ExpYear != 2030 || card.Funding != "credit" {
		t.Fatalf("charge %+v card %+v", ch, card)
	}
	// Only the id without expand.
	if plain := e.retrieve(s.ID); plain.PaymentIntent == nil || plain.PaymentIntent.ID != pi.ID || plain.PaymentIntent.Amount != 0 {
		t.Errorf("unexpanded payment_intent %+v", plain.PaymentIntent)
	}
	intent, err := e.sc.V1PaymentIntents.Retrieve(ctx, pi.ID, &stripe.PaymentIntentRetrieveParams{Expand: []*string{stripe.String("latest_charge")}})
	if err != nil || intent.LatestCharge == nil || intent.LatestCharge.PaymentMethodDetails.Card.Last4 != "4444" {
		t.Fatalf("payment intent retrieve: %+v %v", intent, err)
	}

	// The signed webhook, verifiable with stripe-go.
	e.flush()
	hooks := e.hook.requests()
	if len(hooks) != 1 {
		t.Fatalf("%d webhooks, want 1", len(hooks))
	}
	ev := verify(t, hooks[0], testSecret)
	if ev.Type != "checkout.session.completed" || !strings.HasPrefix(ev.ID, "evt_") || ev.Livemode || ev.APIVersion != stripe.APIVersion ||
		ev.Created != testNow.Unix() || ev.Request == nil || ev.Request.ID != "" {
		t.Errorf("event %+v", ev)
	}
	var evSession stripe.CheckoutSession
	if err := json.Unmarshal(ev.Data.Raw, &evSession); err != nil {
		t.Fatal(err)
	}
	if evSession.ID != s.ID || evSession.PaymentStatus != "paid" || evSession.PaymentIntent == nil || evSession.PaymentIntent.ID != pi.ID {
		t.Errorf("event session %+v", evSession)
	}
	if _, err := webhook.ConstructEvent(hooks[0].payload, hooks[0].header.Get("Stripe-Signature"), "whsec_other"); err == nil {
		t.Error("a wrong secret verified")
	}
	if hooks[0].header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("webhook Content-Type %q", hooks[0].header.Get("Content-Type"))
	}
	if evs := e.p.Events(); len(evs) != 1 || !evs[0].Delivered || evs[0].Pending || len(evs[0].Attempts) != 1 || evs[0].ObjectID != s.ID {
		t.Errorf("events %+v", evs)
	}

	// Pressing again (any button) goes back to the merchant and changes nothing.
	for _, action := range []string{"pay", "decline", "cancel"} {
		res, _ := e.press(s.ID, url.Values{"action": {action}})
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "https://shop.example/booking/edit/status/") {
			t.Errorf("repeat %s: %d %s", action, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if _, page := e.getPage(s.ID); strings.Contains(page, "<form") || !strings.Contains(page, "This payment is complete.") {
		t.Errorf("page after payment: %s", page)
	}
	e.flush()
	if n := len(e.p.Events()); n != 1 {
		t.Errorf("%d events after repeats, want 1", n)
	}
}

func TestDeclinedCards(t *testing.T) {
	tests := []struct {
		name, action, card, want string
	}{
		{"decline button", "decline", "", "Your card was declined."},
		{"generic decline", "pay", "4000 0000 0000 0002", "Your card was declined."},
		{"any number ending 0002", "pay", "4111 1111 1111 0002", "Your card was declined."},
		{"insufficient funds", "pay", "4000000000009995", "Your card has insufficient funds."},
		{"expired", "pay", "4000 0000 0000 0069", "Your card has expired."},
		{"not a number", "pay", "4242 abcd", "Your card number is invalid."},
		{"Luhn", "pay", "4242 4242 4242 4241", "Your card number is invalid."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			s := e.session(1000)
			res, page := e.press(s.ID, url.Values{"action": {tc.action}, "card": {tc.card}})
			if res.StatusCode != http.StatusOK || !strings.Contains(page, tc.want) || !strings.Contains(page, `role="alert"`) || !strings.Contains(page, ">Pay</button>") {
				t.Fatalf("%d %s", res.StatusCode, page)
			}
			if got := e.retrieve(s.ID); got.Status != "open" || got.PaymentStatus != "unpaid" || got.PaymentIntent != nil {
				t.Errorf("session after a decline %+v", got)
			}
			if evs := e.p.Events(); len(evs) != 0 {
				t.Errorf("events %+v", evs)
			}
			// Another try with a good card pays.
			if res, _ := e.press(s.ID, url.Values{"action": {"pay"}, "card": {"4242424242424242"}}); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("second try: %d", res.StatusCode)
			}
			got := e.retrieve(s.ID, "payment_intent.latest_charge")
			if got.Status != "complete" || got.PaymentIntent.LatestCharge.PaymentMethodDetails.Card.Brand != "visa" {
				t.Errorf("after the second try %+v", got)
			}
		})
	}
}

func TestCancelKeepsTheSessionOpen(t *testing.T) {
	e := newEnv(t)
	s := e.session(1000)
	res, _ := e.press(s.ID, url.Values{"action": {"cancel"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "https://shop.example/booking/edit/cancelled?session_id="+s.ID {
		t.Fatalf("cancel: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if got := e.retrieve(s.ID); got.Status != "open" || got.URL == "" {
		t.Errorf("after cancel %+v", got)
	}
	if res, _ := e.getPage(s.ID); res.StatusCode != 200 {
		t.Errorf("page after cancel: %d", res.StatusCode)
	}
	if res, body := e.press(s.ID, url.Values{"action": {"refund"}}); res.StatusCode != 400 || !strings.Contains(body, "Unknown action") {
		t.Errorf("unknown action: %d", res.StatusCode)
	}
	if res, _ := e.press("cs_test_unknown", url.Values{"action": {"pay"}}); res.StatusCode != 404 {
		t.Errorf("unknown session page: %d", res.StatusCode)
	}
}

func TestExpire(t *testing.T) {
	t.Run("by API", func(t *testing.T) {
		e := newEnv(t)
		s := e.session(1000)
		params := &stripe.CheckoutSessionExpireParams{}
		params.SetIdempotencyKey("expire-1")
		got, err := e.sc.V1CheckoutSessions.Expire(ctx, s.ID, params)
		if err != nil || got.Status != "expired" || got.URL != "" || got.PaymentStatus != "unpaid" {
			t.Fatalf("expire: %+v %v", got, err)
		}
		_, err = e.sc.V1CheckoutSessions.Expire(ctx, s.ID, nil)
		if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Type != stripe.ErrorTypeInvalidRequest || !strings.Contains(se.Msg, "expired") {
			t.Errorf("second expire: %+v", se)
		}
		paid := e.paid(1000, "4242 4242 4242 4242")
		_, err = e.sc.V1CheckoutSessions.Expire(ctx, paid.ID, nil)
		if se := stripeErr(t, err); se.HTTPStatusCode != 400 {
			t.Errorf("expire a complete session: %+v", se)
		}
		if res, page := e.press(s.ID, url.Values{"action": {"pay"}}); res.StatusCode != 200 || !strings.Contains(page, "expired") || strings.Contains(page, "<form") {
			t.Errorf("pay an expired session: %d %s", res.StatusCode, page)
		}
		e.flush()
		ev, ok := e.p.LastEvent(EventCheckoutSessionExpired)
		if !ok || ev.ObjectID != s.ID {
			t.Fatalf("expired event %+v", ev)
		}
		var body struct {
			Request struct {
				ID             string `json:"id"`
				IdempotencyKey string `json:"idempotency_key"`
			} `json:"request"`
		}
		_ = json.Unmarshal(ev.Payload, &body)
		if !strings.HasPrefix(body.Request.ID, "req_") || body.Request.IdempotencyKey != "expire-1" {
			t.Errorf("event request %+v", body.Request)
		}
	})
	t.Run("by the clock, on read", func(t *testing.T) {
		e := newEnv(t)
		s := e.session(1000)
		e.clock.Advance(24*time.Hour - time.Second)
		if got := e.retrieve(s.ID); got.Status != "open" {
			t.Fatalf("before expires_at: %s", got.Status)
		}
		e.clock.Advance(time.Second)
		if got := e.retrieve(s.ID); got.Status != "expired" {
			t.Fatalf("at expires_at: %s", got.Status)
		}
		e.retrieve(s.ID)
		e.flush()
		var n int
		for _, ev := range e.p.Events() {
			if ev.Type == EventCheckoutSessionExpired {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d expired events, want 1", n)
		}
		if reqs := e.hook.requests(); len(reqs) != 1 || verify(t, reqs[0], testSecret).Type != "checkout.session.expired" {
			t.Errorf("webhooks %d", len(reqs))
		}
	})
	t.Run("by the clock, ticker", func(t *testing.T) {
		old := tickEvery
		tickEvery = 5 * time.Millisecond
		defer func() { tickEvery = old }()
		e := newEnv(t)
		at := testNow.Add(time.Hour)
		params := sessionParams(1000)
		params.ExpiresAt = stripe.Int64(at.Unix())
		s, err := e.sc.V1CheckoutSessions.Create(ctx, params)
		if err != nil || s.ExpiresAt != at.Unix() {
			t.Fatalf("create: %+v %v", s, err)
		}
		e.clock.Advance(time.Hour)
		// Nobody reads: the ticker notices and the webhook goes out.
		eventually(t, "checkout.session.expired", func() bool { return len(e.hook.requests()) == 1 })
		ev := verify(t, e.hook.requests()[0], testSecret)
		if ev.Type != "checkout.session.expired" || ev.Data.Object["id"] != s.ID || ev.Data.Object["status"] != "expired" {
			t.Errorf("event %+v", ev)
		}
	})
}

func TestRefunds(t *testing.T) {
	e := newEnv(t)
	s := e.paid(1000, "4242 4242 4242 4242")
	pi := s.PaymentIntent.ID
	refund := func(amount int64, key string, md map[string]string) (*stripe.Refund, error) {
		params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi), Metadata: md}
		if amount > 0 {
			params.Amount = stripe.Int64(amount)
		}
		if key != "" {
			params.SetIdempotencyKey(key)
		}
		return e.sc.V1Refunds.Create(ctx, params)
	}
	steps := []struct {
		name         string
		amount       int64 // 0: the rest
		wantAmount   int64
		wantCode     stripe.ErrorCode
		wantRefunded int64
	}{
		{"partial", 300, 300, "", 300},
		{"more than remains", 701, 0, stripe.ErrorCodeAmountTooLarge, 300},
		{"the rest", 0, 700, "", 1000},
		{"after the full refund", 1, 0, stripe.ErrorCodeChargeAlreadyRefunded, 1000},
		{"the rest of nothing", 0, 0, stripe.ErrorCodeChargeAlreadyRefunded, 1000},
	}
	var ids []string
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			rf, err := refund(st.amount, fmt.Sprint("rf-", i), map[string]string{"ledger_entry": fmt.Sprint("led_", i)})
			if st.wantCode != "" {
				if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != st.wantCode || se.Type != stripe.ErrorTypeInvalidRequest {
					t.Fatalf("error %+v", se)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(rf.ID, "re_") || rf.Object != "refund" || rf.Amount != st.wantAmount || rf.Currency != "eur" || rf.Status != stripe.RefundStatusSucceeded ||
					rf.PaymentIntent.ID != pi || rf.Charge.ID != s.PaymentIntent.LatestCharge.ID || rf.Metadata["ledger_entry"] != fmt.Sprint("led_", i) || rf.Created != testNow.Unix() {
					t.Fatalf("refund %+v", rf)
				}
				ids = append(ids, rf.ID)
			}
			intent, err := e.sc.V1PaymentIntents.Retrieve(ctx, pi, &stripe.PaymentIntentRetrieveParams{Expand: []*string{stripe.String("latest_charge")}})
			if err != nil {
				t.Fatal(err)
			}
			if ch := intent.LatestCharge; ch.AmountRefunded != st.wantRefunded || ch.Refunded != (st.wantRefunded == 1000) {
				t.Errorf("charge refunded %d/%v, want %d", ch.AmountRefunded, ch.Refunded, st.wantRefunded)
			}
		})
	}
	// Retrieve a refund, with its charge expanded.
	got, err := e.sc.V1Refunds.Retrieve(ctx, ids[0], &stripe.RefundRetrieveParams{Expand: []*string{stripe.String("charge")}})
	if err != nil || got.Amount != 300 || got.Charge == nil || got.Charge.AmountRefunded != 1000 {
		t.Fatalf("retrieve refund: %+v %v", got, err)
	}
	_, err = e.sc.V1Refunds.Retrieve(ctx, "re_nope", nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 404 || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("unknown refund: %+v", se)
	}
	// charge.refunded for each refund, with the charge and what it was before.
	e.flush()
	var refunded []stripe.Event
	for _, r := range e.hook.requests() {
		if ev := verify(t, r, testSecret); ev.Type == "charge.refunded" {
			refunded = append(refunded, ev)
		}
	}
	if len(refunded) != 2 {
		t.Fatalf("%d charge.refunded webhooks, want 2", len(refunded))
	}
	// Deliveries run side by side, and Stripe does not promise their order either: the second
	// refund's event is the one its request (idempotency key rf-2) made.
	second := slices.IndexFunc(refunded, func(ev stripe.Event) bool { return ev.Request != nil && ev.Request.IdempotencyKey == "rf-2" })
	if second < 0 {
		t.Fatalf("no charge.refunded of the request rf-2: %+v", refunded)
	}
	var last stripe.Charge
	_ = json.Unmarshal(refunded[second].Data.Raw, &last)
	if last.AmountRefunded != 1000 || !last.Refunded || refunded[second].Data.PreviousAttributes["amount_refunded"] != 300.0 ||
		!strings.HasPrefix(refunded[second].Request.ID, "req_") {
		t.Errorf("last charge.refunded %+v %+v", last, refunded[second])
	}

	// By charge id; not refundable; unknown.
	other := e.paid(2000, "4242 4242 4242 4242")
	rf, err := e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{Charge: stripe.String(other.PaymentIntent.LatestCharge.ID), Amount: stripe.Int64(500)})
	if err != nil || rf.PaymentIntent.ID != other.PaymentIntent.ID || rf.Amount != 500 {
		t.Fatalf("refund by charge: %+v %v", rf, err)
	}
	pending, _ := e.p.Create(CreateRequest{AmountInCents: 500, Currency: "EUR", ReturnURL: "https://shop.example/r"})
	errs := []struct {
		name   string
		params *stripe.RefundCreateParams
		status int
		code   stripe.ErrorCode
	}{
		{"unpaid", &stripe.RefundCreateParams{PaymentIntent: stripe.String(pending.ID)}, 400, stripe.ErrorCodePaymentIntentUnexpectedState},
		{"unknown intent", &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_nope"), Amount: stripe.Int64(5)}, 400, stripe.ErrorCodeResourceMissing},
		{"unknown charge", &stripe.RefundCreateParams{Charge: stripe.String("ch_nope")}, 400, stripe.ErrorCodeResourceMissing},
		{"neither", &stripe.RefundCreateParams{Amount: stripe.Int64(5)}, 400, stripe.ErrorCodeParameterMissing},
		{"zero", &stripe.RefundCreateParams{PaymentIntent: stripe.String(other.PaymentIntent.ID), Amount: stripe.Int64(0)}, 400, ""},
		{"bad reason", &stripe.RefundCreateParams{PaymentIntent: stripe.String(other.PaymentIntent.ID), Reason: stripe.String("bored")}, 400, ""},
	}
	for _, tc := range errs {
		_, err := e.sc.V1Refunds.Create(ctx, tc.params)
		if se := stripeErr(t, err); se.HTTPStatusCode != tc.status || se.Code != tc.code {
			t.Errorf("%s: %+v", tc.name, se)
		}
	}
}

func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	create := func(key string, amount int64) (*stripe.CheckoutSession, error) {
		params := sessionParams(amount)
		params.SetIdempotencyKey(key)
		return e.sc.V1CheckoutSessions.Create(ctx, params)
	}
	first, err := create("k1", 1000)
	if err != nil {
		t.Fatal(err)
	}
	again, err := create("k1", 1000)
	if err != nil || again.ID != first.ID || again.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("same key, same parameters: %+v %v", again, err)
	}
	if n := len(e.p.sessions); n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
	_, err = create("k1", 1001)
	if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Type != stripe.ErrorTypeIdempotency ||
		!strings.Contains(se.Msg, "Keys for idempotent requests can only be used with the same parameters they were first used with") {
		t.Errorf("same key, other parameters: %+v", se)
	}
	if s, err := create("k2", 1001); err != nil || s.ID == first.ID {
		t.Errorf("another key: %+v %v", s, err)
	}
	// Keys are per endpoint.
	paid := e.paid(1000, "4242424242424242")
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent.ID), Amount: stripe.Int64(100)}
	params.SetIdempotencyKey("k1")
	rf1, err := e.sc.V1Refunds.Create(ctx, params)
	if err != nil {
		t.Fatalf("refund with a key used on another endpoint: %v", err)
	}
	rf2, err := e.sc.V1Refunds.Create(ctx, params)
	if err != nil || rf2.ID != rf1.ID {
		t.Fatalf("repeated refund: %+v %v", rf2, err)
	}
	if ch, _ := e.p.Charge(paid.PaymentIntent.LatestCharge.ID); ch.AmountRefunded != 100 {
		t.Errorf("refunded %d, want 100", ch.AmountRefunded)
	}
	// An error of the call itself is replayed; a refused parameter is not remembered.
	big := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paid.PaymentIntent.ID), Amount: stripe.Int64(5000)}
	big.SetIdempotencyKey("k3")
	for range 2 {
		_, err := e.sc.V1Refunds.Create(ctx, big)
		if se := stripeErr(t, err); se.Code != stripe.ErrorCodeAmountTooLarge {
			t.Errorf("too large: %+v", se)
		}
	}
	bad := sessionParams(1000)
	bad.Mode = nil
	bad.SetIdempotencyKey("k4")
	if _, err := e.sc.V1CheckoutSessions.Create(ctx, bad); stripeErr(t, err).Code != stripe.ErrorCodeParameterMissing {
		t.Errorf("missing mode: %v", err)
	}
	if _, err := create("k4", 1000); err != nil {
		t.Errorf("a key whose first use was refused for its parameters: %v", err)
	}
	// Concurrent repeats of one key make one session.
	var wg sync.WaitGroup
	ids := make(chan string, 20)
	for range 20 {
		wg.Go(func() {
			s, err := create("k5", 777)
			if err != nil {
				t.Error(err)
				return
			}
			ids <- s.ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("concurrent repeats made %d sessions", len(seen))
	}
}

func TestAuthAndRouting(t *testing.T) {
	e := newEnv(t)
	s := e.session(1000)
	tests := []struct {
		name, method, path, auth string
		want                     int
		msg                      string
	}{
		{"no key", "GET", "/v1/checkout/sessions/" + s.ID, "", 401, "You did not provide an API key."},
		{"other scheme", "GET", "/v1/checkout/sessions/" + s.ID, "Digest " + testKey, 401, "You did not provide an API key."},
		{"wrong key", "GET", "/v1/checkout/sessions/" + s.ID, "Bearer sk_test_wrongwrongwrong1234", 401, "Invalid API Key provided: sk_test_"},
		{"wrong key on create", "POST", "/v1/checkout/sessions", "Bearer sk_test_wrongwrongwrong1234", 401, "Invalid API Key provided:"},
		{"basic auth", "GET", "/v1/checkout/sessions/" + s.ID, "Basic " + basic(testKey+":"), 200, ""},
		{"lower-case bearer", "GET", "/v1/checkout/sessions/" + s.ID, "bearer " + testKey, 200, ""},
		{"unknown URL", "GET", "/v1/customers", "Bearer " + testKey, 404, "Unrecognized request URL (GET: /v1/customers)"},
		{"unknown URL without a key", "GET", "/v1/customers", "", 401, ""},
		{"wrong method", "DELETE", "/v1/checkout/sessions/" + s.ID, "Bearer " + testKey, 404, "Unrecognized request URL (DELETE: "},
		{"unknown parameter on GET", "GET", "/v1/checkout/sessions/" + s.ID + "?limit=3", "Bearer " + testKey, 400, "Received unknown parameter: limit"},
		{"the old API is gone", "GET", "/api/payments/" + s.ID, "Bearer " + testKey, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, e.srv.URL+"/pay"+tc.path, nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			res, err := e.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var out struct {
				Error map[string]any `json:"error"`
			}
			_ = json.NewDecoder(res.Body).Decode(&out)
			if res.StatusCode != tc.want {
				t.Fatalf("status %d, want %d (%v)", res.StatusCode, tc.want, out)
			}
			msg, _ := out.Error["message"].(string)
			if !strings.Contains(msg, tc.msg) || strings.Contains(msg, "wrongwrongwrong") {
				t.Errorf("message %q, want it to contain %q and not the key", msg, tc.msg)
			}
			if tc.want == 401 && out.Error["type"] != "invalid_request_error" {
				t.Errorf("error %v", out.Error)
			}
		})
	}
	// stripe-go with a wrong key.
	bad := stripeClient(e.srv.URL, "sk_test_nottheone", 0)
	_, err := bad.V1CheckoutSessions.Create(ctx, sessionParams(1000))
	if se := stripeErr(t, err); se.HTTPStatusCode != 401 || strings.Contains(se.Msg, "sk_test_nottheone") {
		t.Errorf("wrong key through stripe-go: %+v", se)
	}
	if p := New(Options{}); p.apiKey != DefaultAPIKey || DefaultAPIKey != "sk_test_sandbox" || p.WebhookSecret() != "whsec_sandbox" {
		t.Errorf("defaults %q %q", p.apiKey, p.WebhookSecret())
	}
}

func basic(s string) string {
	req, _ := http.NewRequest("GET", "http://x/", nil)
	user, pass, _ := strings.Cut(s, ":")
	req.SetBasicAuth(user, pass)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

func TestSetFailNext(t *testing.T) {
	e := newEnv(t)
	e.p.SetFailNext(OpCheckoutSessionsCreate, 1, http.StatusServiceUnavailable)
	_, err := e.sc.V1CheckoutSessions.Create(ctx, sessionParams(1000))
	if se := stripeErr(t, err); se.HTTPStatusCode != 503 || se.Type != stripe.ErrorTypeAPI {
		t.Errorf("injected create: %+v", se)
	}
	s := e.session(1000)

	e.p.SetFailNext("get", 2, 0) // the old name of checkout.sessions.retrieve
	for i, want := range []int{500, 500, 200} {
		_, err := e.sc.V1CheckoutSessions.Retrieve(ctx, s.ID, nil)
		got := 200
		if err != nil {
			got = stripeErr(t, err).HTTPStatusCode
		}
		if got != want {
			t.Errorf("retrieve %d: %d, want %d", i, got, want)
		}
	}
	e.p.SetFailNext(OpRefundsCreate, 1, http.StatusTooManyRequests)
	_, err = e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_x")})
	if se := stripeErr(t, err); se.HTTPStatusCode != 429 || se.Code != stripe.ErrorCodeRateLimit {
		t.Errorf("injected 429: %+v", se)
	}
	e.p.SetFailNext(OpPaymentIntentsRetrieve, 1, 502)
	e.p.SetFailNext(OpPaymentIntentsRetrieve, 0, 0)
	if _, err := e.sc.V1PaymentIntents.Retrieve(ctx, "pi_x", nil); stripeErr(t, err).HTTPStatusCode != 404 {
		t.Errorf("cleared rule: %v", err)
	}

	// An injected failure happens before the call: a retry with the same
	// Idempotency-Key runs it (once).
	e.p.SetFailNext(OpCheckoutSessionsCreate, 1, 500)
	before := len(e.p.sessions)
	params := sessionParams(1000)
	params.SetIdempotencyKey("after-a-failure")
	if _, err := e.sc.V1CheckoutSessions.Create(ctx, params); stripeErr(t, err).HTTPStatusCode != 500 {
		t.Fatalf("injected: %v", err)
	}
	for range 2 {
		if _, err := e.sc.V1CheckoutSessions.Create(ctx, params); err != nil {
			t.Fatalf("retry after the failure: %v", err)
		}
	}
	if n := len(e.p.sessions) - before; n != 1 {
		t.Errorf("%d sessions from one retried create", n)
	}
}

func TestWebhookRetriesAndRedelivery(t *testing.T) {
	e := newEnv(t)
	e.hook.failNext = 2
	s := e.paid(1000, "4242424242424242")
	e.flush()
	reqs := e.hook.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d deliveries, want 3 (two failures, then success)", len(reqs))
	}
	ev, ok := e.p.LastEvent(EventCheckoutSessionCompleted)
	if !ok || !ev.Delivered || ev.Pending || ev.ObjectID != s.ID {
		t.Fatalf("event %+v", ev)
	}
	var codes []int
	for _, a := range ev.Attempts {
		codes = append(codes, a.StatusCode)
	}
	if fmt.Sprint(codes) != "[500 500 200]" {
		t.Errorf("attempts %v", codes)
	}
	for _, r := range reqs {
		if verify(t, r, testSecret).ID != ev.ID {
			t.Error("a retry is another event")
		}
	}
	// Delivered twice: the receiver must cope.
	if err := e.p.Redeliver(ctx, ev.ID); err != nil {
		t.Fatal(err)
	}
	reqs = e.hook.requests()
	if len(reqs) != 4 || verify(t, reqs[3], testSecret).ID != ev.ID {
		t.Errorf("redelivery: %d requests", len(reqs))
	}
	if err := e.p.Redeliver(ctx, "evt_nope"); err == nil {
		t.Error("redelivered an unknown event")
	}

	// A receiver that always fails: the provider gives up after a few tries.
	e.hook.mu.Lock()
	e.hook.failNext = 100
	e.hook.mu.Unlock()
	e.paid(1000, "4242424242424242")
	e.flush()
	last, _ := e.p.LastEvent("")
	if last.Delivered || last.Pending || len(last.Attempts) != maxDeliveryAttempts {
		t.Errorf("undeliverable event %+v", last)
	}
	if err := e.p.Redeliver(ctx, last.ID); err == nil {
		t.Error("Redeliver did not report the failure")
	}

	// Without a webhook URL events are recorded, not sent.
	quiet := newEnv(t, func(o *Options) { o.WebhookURL = "" })
	quiet.paid(1000, "4242424242424242")
	if evs := quiet.p.Events(); len(evs) != 1 || evs[0].Pending || len(evs[0].Attempts) != 0 || len(quiet.hook.requests()) != 0 {
		t.Errorf("events without a URL %+v", evs)
	}
	var body map[string]any
	_ = json.Unmarshal(quiet.p.Events()[0].Payload, &body)
	if body["pending_webhooks"] != 0.0 || body["object"] != "event" || body["api_version"] != stripe.APIVersion {
		t.Errorf("payload %v", body)
	}
}

func TestSignature(t *testing.T) {
	payload := []byte(`{"id":"evt_1","object":"event","api_version":"` + stripe.APIVersion + `","type":"x","data":{"object":{}}}`)
	now := time.Now()
	h := Signature(payload, "whsec_x", now)
	if !strings.HasPrefix(h, fmt.Sprintf("t=%d,v1=", now.Unix())) {
		t.Fatalf("header %q", h)
	}
	if _, err := webhook.ConstructEvent(payload, h, "whsec_x"); err != nil {
		t.Errorf("stripe-go refuses: %v", err)
	}
	tampered := append([]byte(nil), payload...)
	tampered[10] = 'X'
	if _, err := webhook.ConstructEvent(tampered, h, "whsec_x"); err == nil {
		t.Error("tampered payload verified")
	}
	if _, err := webhook.ConstructEvent(payload, Signature(payload, "whsec_x", now.Add(-time.Hour)), "whsec_x"); err == nil {
		t.Error("an old signature verified")
	}
}

func TestConcurrentRefunds(t *testing.T) {
	e := newEnv(t)
	const amount, each, workers = 1000, 30, 50
	e.p.SeedPaid("pi_seed_concurrent", amount, "EUR", "************1111", "VISA")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		codes   = map[string]int{}
		granted int64
	)
	for range workers {
		wg.Go(func() {
			rf, err := e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_seed_concurrent"), Amount: stripe.Int64(each)})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				codes[string(stripeErr(t, err).Code)]++
				return
			}
			codes["ok"]++
			granted += rf.Amount
		})
	}
	wg.Wait()
	if granted != amount/each*each || codes["ok"] != amount/each || codes["amount_too_large"] != workers-amount/each {
		t.Errorf("granted %d, codes %v", granted, codes)
	}
	if pay, _ := e.p.Get("pi_seed_concurrent"); pay.RefundedInCents != granted || pay.Status != StatusPartiallyRefunded {
		t.Errorf("view %+v", pay)
	}
}

// TestStripeGoRefusesAPathPrefix pins a limit of stripe-go v85: with a
// backend URL that has a path (http://host:port/pay) it sends the request but
// then refuses the answer ("unknown path prefix /pay/v1/…", from its check of
// the request path), so a create happens and the caller sees an error. A
// client of the sandbox's /pay mount either uses the API at the root
// (http://host:port, as the standalone sandbox serves it) or keeps /pay out
// of the backend URL and adds it in its HTTP transport (below). If this test
// fails, stripe-go accepts a path again and the workaround can go.
func TestStripeGoRefusesAPathPrefix(t *testing.T) {
	e := newEnv(t)
	direct := stripeClient(e.srv.URL+"/pay", testKey, 0)
	_, err := direct.V1CheckoutSessions.Create(ctx, sessionParams(1000))
	if err == nil || !strings.Contains(err.Error(), "unknown path prefix /pay/v1/checkout/sessions") {
		t.Fatalf("stripe-go with a path in the backend URL: %v", err)
	}
	if n := len(e.p.sessions); n != 1 {
		t.Errorf("%d sessions: the request went through all the same", n)
	}

	// The workaround: the path in the transport, not in the backend URL.
	prefixed := stripeClientWith(e.srv.URL, testKey, 0, &http.Client{Transport: prefixTransport{"/pay", http.DefaultTransport}})
	s, err := prefixed.V1CheckoutSessions.Create(ctx, sessionParams(1000))
	if err != nil {
		t.Fatalf("through /pay with a prefixing transport: %v", err)
	}
	if got, err := prefixed.V1CheckoutSessions.Retrieve(ctx, s.ID, nil); err != nil || got.ID != s.ID {
		t.Fatalf("retrieve through /pay: %+v %v", got, err)
	}
	_, err = prefixed.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String("pi_nope"), Amount: stripe.Int64(1)})
	if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("error through /pay: %+v", se)
	}
}

// prefixTransport puts a path prefix in front of every request path (on a
// copy of the request: stripe-go looks at its own afterwards).
type prefixTransport struct {
	prefix string
	next   http.RoundTripper
}

func (t prefixTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	r2.URL.Path = t.prefix + r.URL.Path
	r2.URL.RawPath = ""
	return t.next.RoundTrip(r2)
}
