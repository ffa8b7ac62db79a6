package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// stripeMockURL is a running stripe-mock (Stripe's mock server, generated from Stripe's
// OpenAPI specification): STRIPE_MOCK_URL, or the default port. It refuses unknown
// parameters and wrong types, so a request it accepts is one Stripe accepts. CI starts a
// pinned stripe-mock (.ci/run); elsewhere the test skips loudly without one.
func stripeMockURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("STRIPE_MOCK_URL")
	if u == "" {
		u = "http://127.0.0.1:12111"
	}
	host := strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	c, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		msg := fmt.Sprintf("stripe-mock is not running at %s (go install github.com/stripe/stripe-mock@%s; stripe-mock -http-port 12111): %v", u, stripeMockVersion, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED LOUDLY: " + msg)
	}
	c.Close()
	return u
}

// stripeMockVersion is the stripe-mock CI installs (.ci/run reads it from here).
const stripeMockVersion = "v0.203.0"

func TestStripeRequestsAreAcceptedByStripeMock(t *testing.T) {
	base := stripeMockURL(t)
	exerciseStripeAdapter(t, base, "sk_test_123", "pi_123", "")
	// A parameter Stripe does not know is refused, so the test above can fail.
	sc := stripe.NewClient("sk_test_123", stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{URL: stripe.String(base), MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}})))
	bad := &stripe.CheckoutSessionCreateParams{Mode: stripe.String("payment")}
	bad.AddExtra("not_a_stripe_parameter", "1")
	if _, err := sc.V1CheckoutSessions.Create(context.Background(), bad); err == nil {
		t.Error("stripe-mock accepted an unknown parameter: it does not check what we send")
	}
}

// TestStripeAdapterAgainstTheSandbox runs the same calls against the sandbox's stateful
// Stripe subset, mounted under /pay as the embedded default serves it.
func TestStripeAdapterAgainstTheSandbox(t *testing.T) {
	prov := payprovider.New(payprovider.Options{PublicURL: "http://127.0.0.1/pay", APIKey: "sk_test_sandbox"})
	t.Cleanup(prov.Close)
	pi := prov.SeedPaid("", 2650, "EUR", "************4242", "VISA")
	srv := httptest.NewServer(http.StripPrefix("/pay", prov.Handler()))
	defer srv.Close()
	exerciseStripeAdapter(t, srv.URL+"/pay", "sk_test_sandbox", pi.ID, pi.LatestChargeID)
}

// exerciseStripeAdapter makes every call of the adapter once; refundable is a paid payment
// intent at the provider, charge its charge ("": a provider that makes up its answers, whose
// charges belong to no intent).
func exerciseStripeAdapter(t *testing.T, base, key, refundable, charge string) {
	t.Helper()
	s, err := NewStripePayments(StripeOptions{BaseURL: base, SecretKey: key, Retries: stripe.Int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := s.CreatePayment(ctx, PaymentRequest{AmountCents: 1325, Currency: "EUR", ReturnURL: "https://tickets.example/booking/edit/return/le_1",
		IdempotencyKey: "le_1", Reference: "le_1", Description: "Change to booking 100002", Metadata: map[string]string{"booking": "0001/100002"}, Locale: "de"})
	if err != nil {
		t.Fatalf("create checkout session: %v", err)
	}
	if !strings.HasPrefix(p.ID, "cs_") || p.Token != p.ID || p.HostedURL == "" {
		t.Errorf("payment %+v", p)
	}
	if _, err := s.GetPayment(ctx, p.ID); err != nil {
		t.Errorf("retrieve checkout session with expand: %v", err)
	}
	if got, err := s.GetPayment(ctx, refundable); err != nil || got.ProviderReference == "" {
		t.Errorf("retrieve payment intent: %+v %v", got, err)
	}
	if charge == "" {
		// stripe-mock's charge names no intent: the read is accepted, and found to be no payment.
		if got, err := s.GetPayment(ctx, "ch_123"); !errors.Is(err, ErrNotFound) {
			t.Errorf("retrieve a charge without an intent: %+v %v, want ErrNotFound", got, err)
		}
	} else if got, err := s.GetPayment(ctx, charge); err != nil || got.ID != refundable || got.CardPresent || got.Status != cinema.PaymentPaid {
		t.Errorf("retrieve the payment by its charge: %+v %v, want the intent %s, paid online", got, err, refundable)
	}
	if _, err := s.CancelPayment(ctx, p.ID); err != nil {
		t.Errorf("expire checkout session: %v", err)
	}
	rf, err := s.Refund(ctx, refundable, 500, "le_2")
	if err != nil {
		t.Fatalf("refund: %v", err)
	}
	if !strings.HasPrefix(rf.ID, "re_") || rf.PaymentID != refundable {
		t.Errorf("refund %+v", rf)
	}
	if got, err := s.GetRefund(ctx, rf.ID); err != nil || got.ID != rf.ID || got.Status == "" {
		t.Errorf("retrieve the refund: %+v %v", got, err)
	}
}

func TestStripeSessionPayment(t *testing.T) {
	charge := func(refunded int64, full bool) *stripe.Charge {
		return &stripe.Charge{ID: "ch_1", AmountRefunded: refunded, Refunded: full,
			PaymentMethodDetails: &stripe.ChargePaymentMethodDetails{Card: &stripe.ChargePaymentMethodDetailsCard{Brand: "visa", Last4: "4242"}}}
	}
	tests := []struct {
		name     string
		cs       stripe.CheckoutSession
		status   cinema.PaymentStatus
		ref      string
		card     string
		refunded int64
	}{
		{"open", stripe.CheckoutSession{ID: "cs_1", Status: "open", PaymentStatus: "unpaid", AmountTotal: 1325, Currency: "eur"}, cinema.PaymentPending, "", "", 0},
		{"paid", stripe.CheckoutSession{ID: "cs_1", Status: "complete", PaymentStatus: "paid", AmountTotal: 1325, Currency: "eur",
			PaymentIntent: &stripe.PaymentIntent{ID: "pi_1", LatestCharge: charge(0, false)}}, cinema.PaymentPaid, "pi_1", "VISA", 0},
		{"partly refunded", stripe.CheckoutSession{ID: "cs_1", Status: "complete", PaymentStatus: "paid", AmountTotal: 1325, Currency: "eur",
			PaymentIntent: &stripe.PaymentIntent{ID: "pi_1", LatestCharge: charge(300, false)}}, cinema.PaymentPartiallyRefunded, "pi_1", "VISA", 300},
		{"refunded", stripe.CheckoutSession{ID: "cs_1", Status: "complete", PaymentStatus: "paid", AmountTotal: 1325, Currency: "eur",
			PaymentIntent: &stripe.PaymentIntent{ID: "pi_1", LatestCharge: charge(1325, true)}}, cinema.PaymentRefunded, "pi_1", "VISA", 1325},
		{"expired", stripe.CheckoutSession{ID: "cs_1", Status: "expired", PaymentStatus: "unpaid", AmountTotal: 1325, Currency: "eur"}, cinema.PaymentCancelled, "", "", 0},
		{"complete, not paid (a delayed method): never success", stripe.CheckoutSession{ID: "cs_1", Status: "complete", PaymentStatus: "unpaid", AmountTotal: 1325, Currency: "eur"}, cinema.PaymentUnknown, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := sessionPayment(&tc.cs)
			if p.Status != tc.status || p.ProviderReference != tc.ref || p.CardType != tc.card || p.Refunded.Cents != tc.refunded ||
				p.Amount != (cinema.Money{Cents: 1325, Currency: "EUR"}) || p.Token != "cs_1" {
				t.Errorf("%+v", p)
			}
			if tc.card != "" && p.CardNumberMasked != "************4242" {
				t.Errorf("masked %q", p.CardNumberMasked)
			}
		})
	}
}

func TestStripeErrors(t *testing.T) {
	tests := []struct {
		err  error
		want error
	}{
		{&stripe.Error{HTTPStatusCode: 404, Code: stripe.ErrorCodeResourceMissing}, ErrNotFound},
		{&stripe.Error{HTTPStatusCode: 400, Code: stripe.ErrorCodeAmountTooLarge}, ErrRefundExceedsRefundable},
		{&stripe.Error{HTTPStatusCode: 400, Code: stripe.ErrorCodeChargeAlreadyRefunded}, ErrRefundExceedsRefundable},
		{&stripe.Error{HTTPStatusCode: 400, Code: stripe.ErrorCodePaymentIntentUnexpectedState}, ErrPaymentNotPaid},
		{&stripe.Error{HTTPStatusCode: 401, Type: stripe.ErrorTypeInvalidRequest}, ErrUnauthorized},
		{&stripe.Error{HTTPStatusCode: 500, Type: stripe.ErrorTypeAPI}, ErrUnavailable},
		{&stripe.Error{HTTPStatusCode: 402, Type: stripe.ErrorTypeCard, Code: stripe.ErrorCodeCardDeclined}, ErrPaymentDeclined},
		{&stripe.Error{HTTPStatusCode: 400, Type: stripe.ErrorTypeIdempotency}, ErrInvalidRequest},
		{errors.New("dial tcp: connection refused"), ErrUnavailable},
	}
	for _, tc := range tests {
		if err := stripeError(OpRefund, tc.err); !errors.Is(err, tc.want) {
			t.Errorf("%v → %v, want %v", tc.err, err, tc.want)
		}
	}
	if err := stripeError(OpRefund, &stripe.Error{HTTPStatusCode: 503}); !isOutage(err) {
		t.Error("a 503 is an outage")
	}
	if err := stripeError(OpRefund, &stripe.Error{HTTPStatusCode: 400, Code: stripe.ErrorCodeAmountTooLarge}); isOutage(err) {
		t.Error("a refusal is not an outage")
	}
}

func TestStripeWebhookSignatures(t *testing.T) {
	const secret = "whsec_test_secret"
	s, err := NewStripePayments(StripeOptions{BaseURL: "http://127.0.0.1:1", SecretKey: "sk_test_x", WebhookSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"id":"evt_1","object":"event","api_version":"2020-08-27","created":1700000000,"type":"checkout.session.completed",
		"data":{"object":{"id":"cs_test_1","object":"checkout.session","client_reference_id":"le_7","payment_intent":"pi_1"}}}`)
	sign := func(at time.Time, secret string) string {
		return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
	}
	ev, err := s.ParseWebhook(payload, sign(time.Now(), secret))
	if err != nil {
		t.Fatal(err)
	}
	if ev.ID != "evt_1" || ev.Type != "checkout.session.completed" || ev.PaymentID != "cs_test_1" || ev.Reference != "le_7" {
		t.Errorf("event %+v", ev)
	}
	for name, header := range map[string]string{
		"no signature":          "",
		"garbage":               "t=1,v1=abc",
		"another secret":        sign(time.Now(), "whsec_other"),
		"older than tolerance":  sign(time.Now().Add(-10*time.Minute), secret),
		"signature of the past": sign(time.Now().Add(-301*time.Second), secret),
		"10 minutes ahead":      sign(time.Now().Add(10*time.Minute), secret),
		"beyond the tolerance":  sign(time.Now().Add(301*time.Second), secret),
	} {
		if _, err := s.ParseWebhook(payload, header); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}
	// A clock a little ahead of ours is not refused.
	if _, err := s.ParseWebhook(payload, sign(time.Now().Add(time.Minute), secret)); err != nil {
		t.Errorf("a minute ahead: %v", err)
	}
	// The body must be the signed one.
	tampered := []byte(strings.Replace(string(payload), "le_7", "le_8", 1))
	if _, err := s.ParseWebhook(tampered, sign(time.Now(), secret)); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a changed body passed: %v", err)
	}
}

func TestStripeReturnURLsKeepThePlaceholder(t *testing.T) {
	if u := withRawQuery("https://x/return/le_1", "token={CHECKOUT_SESSION_ID}"); u != "https://x/return/le_1?token={CHECKOUT_SESSION_ID}" {
		t.Errorf("%s", u)
	}
	if u := withRawQuery("https://x/r?a=1", "token={CHECKOUT_SESSION_ID}&cancelled=1"); u != "https://x/r?a=1&token={CHECKOUT_SESSION_ID}&cancelled=1" {
		t.Errorf("%s", u)
	}
}

// exerciseReaders makes every card-reader call of the adapter once; against the stateful
// sandbox (stateful) it also checks what the reader does.
func exerciseReaders(t *testing.T, base, key string, stateful bool, tap func(readerID, card string) error) {
	t.Helper()
	s, err := NewStripePayments(StripeOptions{BaseURL: base, SecretKey: key, Retries: stripe.Int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	loc, err := s.EnsureLocation(ctx, "Test Cinemas", "DE")
	if err != nil || loc == "" {
		t.Fatalf("ensure location: %q %v", loc, err)
	}
	r, err := s.RegisterReader(ctx, "simulated-wpe", "Counter 1", loc)
	if err != nil || r.ID == "" {
		t.Fatalf("register reader: %+v %v", r, err)
	}
	if list, err := s.ListReaders(ctx); err != nil || len(list) == 0 {
		t.Fatalf("list readers: %+v %v", list, err)
	}
	p, err := s.StartReaderPayment(ctx, ReaderPaymentRequest{ReaderID: r.ID, AmountCents: 1325, Currency: "EUR", IdempotencyKey: "le_r1",
		Description: "Change to booking 100002", Metadata: map[string]string{"booking": "0001/100002"}})
	if err != nil || !strings.HasPrefix(p.ID, "pi_") {
		t.Fatalf("start reader payment: %+v %v", p, err)
	}
	got, err := s.GetReader(ctx, r.ID)
	if err != nil {
		t.Fatalf("get reader: %v", err)
	}
	if stateful {
		if got.Action.State != ReaderInProgress || got.Action.PaymentID != p.ID || got.Action.AmountCents != 1325 {
			t.Errorf("reader after the payment was sent: %+v", got.Action)
		}
		if err := tap(r.ID, "4242424242424242"); err != nil {
			t.Fatal(err)
		}
		paid, err := s.GetPayment(ctx, p.ID)
		if err != nil || paid.Status != cinema.PaymentPaid || paid.Amount.Cents != 1325 || paid.CardType != "VISA" || !strings.HasSuffix(paid.CardNumberMasked, "4242") ||
			!paid.CardPresent || paid.Booking != "0001/100002" {
			t.Errorf("the card-present payment after the tap: %+v %v", paid, err)
		}
		p2, err := s.StartReaderPayment(ctx, ReaderPaymentRequest{ReaderID: r.ID, AmountCents: 500, Currency: "EUR", IdempotencyKey: "le_r2"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.StartReaderPayment(ctx, ReaderPaymentRequest{ReaderID: r.ID, AmountCents: 700, Currency: "EUR", IdempotencyKey: "le_r3"}); !errors.Is(err, ErrReaderBusy) {
			t.Errorf("a second payment on a busy reader: %v, want ErrReaderBusy", err)
		}
		if _, err := s.CancelReaderAction(ctx, r.ID); err != nil {
			t.Errorf("cancel reader action: %v", err)
		}
		if c, err := s.CancelPayment(ctx, p2.ID); err != nil || c.Status != cinema.PaymentCancelled {
			t.Errorf("cancel the card-present payment: %+v %v", c, err)
		}
		return
	}
	if _, err := s.CancelReaderAction(ctx, r.ID); err != nil {
		t.Errorf("cancel reader action: %v", err)
	}
	if _, err := s.CancelPayment(ctx, p.ID); err != nil {
		t.Errorf("cancel payment intent: %v", err)
	}
}

func TestStripeReadersAgainstStripeMock(t *testing.T) {
	exerciseReaders(t, stripeMockURL(t), "sk_test_123", false, nil)
}

func TestStripeReadersAgainstTheSandbox(t *testing.T) {
	prov := payprovider.New(payprovider.Options{PublicURL: "http://127.0.0.1/pay", APIKey: "sk_test_sandbox"})
	t.Cleanup(prov.Close)
	srv := httptest.NewServer(http.StripPrefix("/pay", prov.Handler()))
	defer srv.Close()
	exerciseReaders(t, srv.URL+"/pay", "sk_test_sandbox", true, prov.PresentPaymentMethod)
}
