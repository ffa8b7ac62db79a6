package upstream

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// StripePayments is the Payments adapter of Stripe, through its official
// library (stripe-go). A payment is a Checkout Session in payment mode; its
// payment intent is the reference the ticketing API is given; refunds go
// through the Refunds API against that intent. The same code talks to
// api.stripe.com and to the sandbox's Stripe-shaped provider: only the base
// URL differs.
type StripePayments struct {
	sc            *stripe.Client
	webhookSecret string
	tolerance     time.Duration
	live          bool
	logger        *slog.Logger
}

var _ Payments = (*StripePayments)(nil)

// StripeOptions configure NewStripePayments.
type StripeOptions struct {
	// BaseURL is the API base: "https://api.stripe.com", or the sandbox's
	// ".../pay". Empty: Stripe's.
	BaseURL string
	// SecretKey is sk_test_… or sk_live_…; it is never logged.
	SecretKey string
	// WebhookSecret (whsec_…) verifies webhook signatures.
	WebhookSecret string
	// WebhookTolerance is how old a signed event may be; 0: stripe-go's 5 minutes.
	WebhookTolerance time.Duration
	// Timeout bounds each API call; 0: DefaultTimeout.
	Timeout time.Duration
	// Retries is how often stripe-go retries a failed call (safely: writes
	// carry idempotency keys); nil: 2.
	Retries *int64
	Logger  *slog.Logger
}

// NewStripePayments returns the Stripe adapter.
func NewStripePayments(o StripeOptions) (*StripePayments, error) {
	if o.SecretKey == "" {
		return nil, errors.New("stripe: a secret key is required (sk_test_… or sk_live_…)")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Retries == nil {
		o.Retries = stripe.Int64(2)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	cfg := &stripe.BackendConfig{
		HTTPClient:        &http.Client{Timeout: o.Timeout},
		MaxNetworkRetries: o.Retries,
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	}
	if o.BaseURL != "" {
		u, err := parseBase(o.BaseURL)
		if err != nil {
			return nil, fmt.Errorf("stripe: %w", err)
		}
		// stripe-go wants a bare origin (it refuses requests whose path does not start
		// with /v1); a base below a path (the sandbox's http://host/pay) is reached by
		// adding that path on the way out.
		if prefix := strings.TrimRight(u.Path, "/"); prefix != "" {
			cfg.HTTPClient.Transport = prefixTransport{prefix: prefix, next: http.DefaultTransport}
		}
		cfg.URL = stripe.String(u.Scheme + "://" + u.Host)
	}
	sc := stripe.NewClient(o.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))
	return &StripePayments{sc: sc, webhookSecret: o.WebhookSecret, tolerance: o.WebhookTolerance,
		live: strings.HasPrefix(o.SecretKey, "sk_live_") || strings.HasPrefix(o.SecretKey, "rk_live_"), logger: o.Logger}, nil
}

// Mode is "live" or "test", from the key.
func (s *StripePayments) Mode() string {
	if s.live {
		return "live"
	}
	return "test"
}

// prefixTransport puts a path prefix in front of every request's path.
type prefixTransport struct {
	prefix string
	next   http.RoundTripper
}

func (t prefixTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	r2.URL.Path = t.prefix + r.URL.Path
	if r.URL.RawPath != "" {
		r2.URL.RawPath = t.prefix + r.URL.RawPath
	}
	return t.next.RoundTrip(r2)
}

// sessionExpand reads a session with what the ledger needs: the intent id,
// the card and what was refunded.
var sessionExpand = []string{"payment_intent", "payment_intent.latest_charge"}

// CreatePayment opens a Checkout Session for the amount. The customer comes
// back to ReturnURL with token={CHECKOUT_SESSION_ID} (and cancelled=1 from
// Stripe's back link). The idempotency key makes a repeat return the same
// session.
func (s *StripePayments) CreatePayment(ctx context.Context, r PaymentRequest) (Payment, error) {
	p := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		SuccessURL:        stripe.String(withRawQuery(r.ReturnURL, "token={CHECKOUT_SESSION_ID}")),
		CancelURL:         stripe.String(withRawQuery(r.ReturnURL, "token={CHECKOUT_SESSION_ID}&cancelled=1")),
		ClientReferenceID: stripe.String(r.Reference),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(strings.ToLower(r.Currency)),
				UnitAmount:  stripe.Int64(r.AmountCents),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(cmp.Or(r.Description, "Booking change"))},
			},
			Quantity: stripe.Int64(1),
		}},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{},
	}
	if r.Locale != "" {
		p.Locale = stripe.String(r.Locale) // Checkout shows its page in the customer's language
	}
	meta := map[string]string{"ledger_entry": r.Reference}
	for k, v := range r.Metadata {
		meta[k] = v
	}
	for k, v := range meta {
		p.AddMetadata(k, v)
		p.PaymentIntentData.AddMetadata(k, v)
	}
	if r.IdempotencyKey != "" {
		p.SetIdempotencyKey("checkout:" + r.IdempotencyKey)
	}
	cs, err := s.sc.V1CheckoutSessions.Create(ctx, p)
	if err != nil {
		return Payment{}, stripeError(OpCreatePayment, err)
	}
	return sessionPayment(cs), nil
}

// GetPayment reads a payment: a Checkout Session (cs_…), a payment intent
// (pi_…, the reference of a booking's payment), or a charge (ch_…, what a
// receipt names), read as the payment intent it belongs to.
func (s *StripePayments) GetPayment(ctx context.Context, id string) (Payment, error) {
	if strings.HasPrefix(id, "ch_") {
		return s.chargeIntent(ctx, id)
	}
	if strings.HasPrefix(id, "pi_") {
		pi, err := s.intent(ctx, id)
		if err != nil {
			return Payment{}, err
		}
		return intentPayment(pi), nil
	}
	p := &stripe.CheckoutSessionRetrieveParams{}
	for _, e := range sessionExpand {
		p.AddExpand(e)
	}
	cs, err := s.sc.V1CheckoutSessions.Retrieve(ctx, id, p)
	if err != nil {
		return Payment{}, stripeError(OpGetPayment, err)
	}
	return sessionPayment(cs), nil
}

// chargeIntent reads the payment intent of charge id. A charge made without an
// intent (the old Charges API) is no payment this site takes: not found.
func (s *StripePayments) chargeIntent(ctx context.Context, id string) (Payment, error) {
	ch, err := s.sc.V1Charges.Retrieve(ctx, id, &stripe.ChargeRetrieveParams{})
	if err != nil {
		return Payment{}, stripeError(OpGetPayment, err)
	}
	if ch.PaymentIntent == nil || ch.PaymentIntent.ID == "" {
		return Payment{}, &Error{Op: OpGetPayment, Kind: ErrNotFound, Description: "the charge " + id + " belongs to no payment intent"}
	}
	pi, err := s.intent(ctx, ch.PaymentIntent.ID)
	if err != nil {
		return Payment{}, err
	}
	return intentPayment(pi), nil
}

func (s *StripePayments) intent(ctx context.Context, id string) (*stripe.PaymentIntent, error) {
	p := &stripe.PaymentIntentRetrieveParams{}
	p.AddExpand("latest_charge")
	pi, err := s.sc.V1PaymentIntents.Retrieve(ctx, id, p)
	if err != nil {
		return nil, stripeError(OpGetPayment, err)
	}
	return pi, nil
}

// CancelPayment ends a payment the customer turned back from: the Checkout
// Session is expired (a card-present payment intent cancelled), so it can no
// longer be paid. One that was paid meanwhile stays paid (read it and use it).
func (s *StripePayments) CancelPayment(ctx context.Context, id string) (Payment, error) {
	if strings.HasPrefix(id, "pi_") {
		return s.cancelIntent(ctx, id)
	}
	if !strings.HasPrefix(id, "cs_") {
		return s.GetPayment(ctx, id)
	}
	_, err := s.sc.V1CheckoutSessions.Expire(ctx, id, &stripe.CheckoutSessionExpireParams{})
	if err != nil {
		var se *stripe.Error
		if !errors.As(err, &se) || se.HTTPStatusCode != http.StatusBadRequest {
			return Payment{}, stripeError(OpGetPayment, err)
		}
		// Not open any more (paid, or expired already): the read says which.
	}
	return s.GetPayment(ctx, id)
}

// Refund refunds amountCents of a payment (a session or an intent) through
// the Refunds API; the idempotency key makes a repeat return the first
// refund.
func (s *StripePayments) Refund(ctx context.Context, paymentID string, amountCents int64, idempotencyKey string) (Refund, error) {
	intentID := paymentID
	if !strings.HasPrefix(paymentID, "pi_") {
		p, err := s.GetPayment(ctx, paymentID)
		if err != nil {
			return Refund{}, err
		}
		if p.ProviderReference == "" {
			return Refund{}, &Error{Op: OpRefund, Kind: ErrPaymentNotPaid, Description: "the checkout session " + paymentID + " was not paid"}
		}
		intentID = p.ProviderReference
	}
	p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(intentID), Amount: stripe.Int64(amountCents)}
	if idempotencyKey != "" {
		p.SetIdempotencyKey("refund:" + idempotencyKey)
	}
	p.AddMetadata("ledger_entry", idempotencyKey)
	rf, err := s.sc.V1Refunds.Create(ctx, p)
	if err != nil {
		return Refund{}, stripeError(OpRefund, err)
	}
	return refundOf(rf, intentID), nil
}

// GetRefund reads a refund as it stands now.
func (s *StripePayments) GetRefund(ctx context.Context, id string) (Refund, error) {
	rf, err := s.sc.V1Refunds.Retrieve(ctx, id, nil)
	if err != nil {
		return Refund{}, stripeError(OpGetRefund, err)
	}
	intentID := ""
	if rf.PaymentIntent != nil {
		intentID = rf.PaymentIntent.ID
	}
	return refundOf(rf, intentID), nil
}

func refundOf(rf *stripe.Refund, intentID string) Refund {
	return Refund{ID: rf.ID, PaymentID: intentID, Amount: rf.Amount, Status: string(rf.Status), CreatedAt: time.Unix(rf.Created, 0).UTC()}
}

// sessionPayment converts a Checkout Session (with its intent expanded when read).
func sessionPayment(cs *stripe.CheckoutSession) Payment {
	cur := strings.ToUpper(string(cs.Currency))
	p := Payment{
		ID: cs.ID, Token: cs.ID, HostedURL: cs.URL, Reference: cs.ClientReferenceID,
		Amount: money(cs.AmountTotal, cur), Refunded: money(0, cur), RawStatus: string(cs.Status) + "/" + string(cs.PaymentStatus),
		CreatedAt: time.Unix(cs.Created, 0).UTC(),
	}
	switch {
	case cs.Status == stripe.CheckoutSessionStatusComplete && cs.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid:
		p.Status = cinema.PaymentPaid
	case cs.Status == stripe.CheckoutSessionStatusExpired:
		p.Status = cinema.PaymentCancelled
	case cs.Status == stripe.CheckoutSessionStatusOpen:
		p.Status = cinema.PaymentPending
	default:
		p.Status = cinema.PaymentUnknown // complete but not paid (delayed methods): never success
	}
	p.Booking = cs.Metadata["booking"]
	if pi := cs.PaymentIntent; pi != nil {
		p.ProviderReference = pi.ID
		cardAndRefunds(&p, pi.LatestCharge)
	}
	return p
}

// intentPayment converts a payment intent (a booking's original payment).
func intentPayment(pi *stripe.PaymentIntent) Payment {
	cur := strings.ToUpper(string(pi.Currency))
	p := Payment{ID: pi.ID, ProviderReference: pi.ID, Amount: money(pi.Amount, cur), Refunded: money(0, cur),
		RawStatus: string(pi.Status), CreatedAt: time.Unix(pi.Created, 0).UTC(), Booking: pi.Metadata["booking"]}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		p.Status = cinema.PaymentPaid
	case stripe.PaymentIntentStatusCanceled:
		p.Status = cinema.PaymentCancelled
	case stripe.PaymentIntentStatusProcessing, stripe.PaymentIntentStatusRequiresPaymentMethod, stripe.PaymentIntentStatusRequiresAction, stripe.PaymentIntentStatusRequiresConfirmation:
		p.Status = cinema.PaymentPending
	default:
		p.Status = cinema.PaymentUnknown
	}
	cardAndRefunds(&p, pi.LatestCharge)
	return p
}

// cardAndRefunds reads the card (brand, last four) and the refunded amount.
func cardAndRefunds(p *Payment, ch *stripe.Charge) {
	if ch == nil {
		return
	}
	p.Refunded = money(ch.AmountRefunded, p.Amount.Currency)
	if p.Status == cinema.PaymentPaid && ch.AmountRefunded > 0 {
		p.Status = cinema.PaymentPartiallyRefunded
		if ch.Refunded || ch.AmountRefunded >= p.Amount.Cents {
			p.Status = cinema.PaymentRefunded
		}
	}
	if d := ch.PaymentMethodDetails; d != nil {
		brand, last4 := "", ""
		switch {
		case d.Card != nil:
			brand, last4 = string(d.Card.Brand), d.Card.Last4
		case d.CardPresent != nil: // a card on a reader
			brand, last4 = string(d.CardPresent.Brand), d.CardPresent.Last4
			p.CardPresent = true
		}
		p.CardType = strings.ToUpper(brand)
		if last4 != "" {
			p.CardNumberMasked = "************" + last4
		}
	}
}

// withRawQuery appends a query to u without escaping it: Stripe replaces
// the literal {CHECKOUT_SESSION_ID}.
func withRawQuery(u, q string) string {
	if strings.Contains(u, "?") {
		return u + "&" + q
	}
	return u + "?" + q
}

// stripeError maps stripe-go's errors to the client's kinds.
func stripeError(op string, err error) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return &Error{Op: op, Kind: ErrUnavailable, Err: err, Outage: true}
	}
	e := &Error{Op: op, HTTPStatus: se.HTTPStatusCode, Description: se.Msg, Reason: string(se.Code), Err: err}
	switch {
	case se.HTTPStatusCode == http.StatusUnauthorized || se.HTTPStatusCode == http.StatusForbidden:
		e.Kind = ErrUnauthorized
	case se.HTTPStatusCode >= 500 || se.Type == stripe.ErrorTypeAPI || se.HTTPStatusCode == http.StatusTooManyRequests:
		e.Kind, e.Outage = ErrUnavailable, se.HTTPStatusCode >= 500 || se.HTTPStatusCode == 0
	case se.Code == stripe.ErrorCodeResourceMissing || se.HTTPStatusCode == http.StatusNotFound:
		e.Kind = ErrNotFound
	case se.Code == stripe.ErrorCodeAmountTooSmall:
		e.Kind = ErrAmountTooSmall
	case se.Code == stripe.ErrorCodeAmountTooLarge || se.Code == stripe.ErrorCodeChargeAlreadyRefunded:
		e.Kind = ErrRefundExceedsRefundable
	case se.Code == stripe.ErrorCodePaymentIntentUnexpectedState || se.Code == stripe.ErrorCodeChargeNotRefundable:
		e.Kind = ErrPaymentNotPaid
	case se.Type == stripe.ErrorTypeCard:
		e.Kind = ErrPaymentDeclined
	default:
		e.Kind = ErrInvalidRequest
	}
	return e
}

// PaymentEvent is a verified notification from the provider.
type PaymentEvent struct {
	ID        string // the provider's event id: each is handled once
	Type      string // e.g. "checkout.session.completed"
	PaymentID string // the checkout session or intent it is about
	Reference string // our reference (the ledger entry), when it carries one
	Created   time.Time
}

// ErrBadSignature refuses a webhook whose signature is missing, wrong, for another
// secret, or older than the tolerance.
var ErrBadSignature = errors.New("payments: webhook signature not valid")

// signedAt is the time in a Stripe-Signature header ("t=1495999758,v1=…"); like stripe-go, the
// last t= counts.
func signedAt(header string) (time.Time, bool) {
	var at time.Time
	ok := false
	for pair := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(pair, "=")
		if k != "t" {
			continue
		}
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		at, ok = time.Unix(sec, 0), true
	}
	return at, ok
}

// ParseWebhook verifies a webhook's Stripe-Signature header and reads the
// event. Only events about checkout sessions and refunds are understood; others
// come back with Type set and no PaymentID.
func (s *StripePayments) ParseWebhook(payload []byte, signature string) (PaymentEvent, error) {
	if s.webhookSecret == "" {
		return PaymentEvent{}, fmt.Errorf("%w: no webhook secret is configured", ErrBadSignature)
	}
	ev, err := webhook.ConstructEventWithOptions(payload, signature, s.webhookSecret, webhook.ConstructEventOptions{
		Tolerance: s.tolerance, IgnoreAPIVersionMismatch: true,
	})
	if err != nil {
		return PaymentEvent{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	// stripe-go only refuses signatures older than the tolerance; one dated further ahead
	// would stay valid (replayable) for as long as it is in the future.
	if at, ok := signedAt(signature); !ok || at.After(time.Now().Add(cmp.Or(s.tolerance, webhook.DefaultTolerance))) {
		return PaymentEvent{}, fmt.Errorf("%w: dated ahead of now by more than the tolerance", ErrBadSignature)
	}
	out := PaymentEvent{ID: ev.ID, Type: string(ev.Type), Created: time.Unix(ev.Created, 0).UTC()}
	if ev.Data == nil {
		return out, nil
	}
	var obj struct {
		ID                string            `json:"id"`
		Object            string            `json:"object"`
		ClientReferenceID string            `json:"client_reference_id"`
		PaymentIntent     json.RawMessage   `json:"payment_intent"`
		Metadata          map[string]string `json:"metadata"`
		Action            *struct {
			ProcessPaymentIntent *struct {
				PaymentIntent json.RawMessage `json:"payment_intent"`
			} `json:"process_payment_intent"`
		} `json:"action"`
	}
	if err := json.Unmarshal(ev.Data.Raw, &obj); err != nil {
		return out, fmt.Errorf("payments: webhook %s: %w", ev.ID, err)
	}
	switch obj.Object {
	case "checkout.session":
		out.PaymentID, out.Reference = obj.ID, obj.ClientReferenceID
	case "charge", "refund", "payment_intent":
		var pi string
		if json.Unmarshal(obj.PaymentIntent, &pi) == nil && pi != "" {
			out.PaymentID = pi
		} else if obj.Object == "payment_intent" {
			out.PaymentID = obj.ID
		}
		out.Reference = obj.Metadata["ledger_entry"]
	case "terminal.reader": // the reader's action: the card-present payment it processed
		if a := obj.Action; a != nil && a.ProcessPaymentIntent != nil {
			out.PaymentID = idOf(a.ProcessPaymentIntent.PaymentIntent)
		}
	}
	return out, nil
}

// idOf is the id of an expandable field: the string, or the object's "id".
func idOf(raw json.RawMessage) string {
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var obj struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.ID
}
