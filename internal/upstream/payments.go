package upstream

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Payments is the redirect payment provider as the flows need it. The
// sandbox's provider and a real payment service both sit behind it.
type Payments interface {
	CreatePayment(ctx context.Context, r PaymentRequest) (Payment, error)
	GetPayment(ctx context.Context, id string) (Payment, error)
	Refund(ctx context.Context, paymentID string, amountCents int64, idempotencyKey string) (Refund, error)
}

var _ Payments = (*PaymentClient)(nil)

// PaymentRequest asks the provider for a payment the customer completes on
// the provider's hosted page.
type PaymentRequest struct {
	AmountCents    int64
	Currency       string
	ReturnURL      string // where the provider sends the browser back (with ?token=)
	IdempotencyKey string // a repeat with the same key returns the same payment
	Reference      string // our reference (e.g. the ledger entry)
	Description    string
}

// Payment is a payment at the provider.
type Payment struct {
	ID               string
	Status           cinema.PaymentStatus
	RawStatus        string
	Amount           cinema.Money
	HostedURL        string // send the browser here
	ReturnURL        string
	Reference        string
	Token            string // compared with the token on the return address
	CardNumberMasked string
	CardType         string
	Refunded         cinema.Money
	CreatedAt        time.Time
}

// Refundable returns what can still be refunded.
func (p Payment) Refundable() cinema.Money {
	if p.Status != cinema.PaymentPaid && p.Status != cinema.PaymentPartiallyRefunded {
		return cinema.Money{Currency: p.Amount.Currency}
	}
	return p.Amount.Sub(p.Refunded)
}

// Refund is a refund of (part of) a payment.
type Refund struct {
	ID        string
	PaymentID string
	Amount    int64 // cents, in the payment's currency
	Status    string
	CreatedAt time.Time
}

// Succeeded reports whether the provider says the refund went through.
func (r Refund) Succeeded() bool { return r.Status == "succeeded" }

// ProviderPaymentStatus maps the provider's status words; others read as
// cinema.PaymentUnknown (never success).
var providerPaymentStatus = map[string]cinema.PaymentStatus{
	"pending": cinema.PaymentPending, "paid": cinema.PaymentPaid, "declined": cinema.PaymentDeclined,
	"cancelled": cinema.PaymentCancelled, "refunded": cinema.PaymentRefunded,
	"partially_refunded": cinema.PaymentPartiallyRefunded,
}

// PaymentClient speaks the payment provider API of the wire profile
// (Bearer auth, idempotency keys). Writes are never retried; a repeat with
// the same idempotency key is the caller's safe way to try again.
type PaymentClient struct {
	base *url.URL
	t    *transport
}

// NewPaymentClient returns a client of the provider API at baseURL (e.g.
// "http://127.0.0.1:8081/pay"; the client appends "/api/payments…").
// Options are those of New; the mapping options do not apply.
func NewPaymentClient(baseURL, apiKey string, opts ...Option) (*PaymentClient, error) {
	u, err := parseBase(baseURL)
	if err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	t, err := newTransport("payments", cfg, func(h http.Header) { h.Set("Authorization", "Bearer "+apiKey) })
	if err != nil {
		return nil, err
	}
	return &PaymentClient{base: u, t: t}, nil
}

// Ready returns nil while the provider's circuit breaker is not open.
func (p *PaymentClient) Ready() error { return p.t.ready() }

type wirePaymentCreate struct {
	AmountInCents  int64  `json:"amountInCents"`
	Currency       string `json:"currency"`
	ReturnUrl      string `json:"returnUrl"`
	IdempotencyKey string `json:"idempotencyKey"`
	Reference      string `json:"reference,omitempty"`
	Description    string `json:"description,omitempty"`
}

type wirePayment struct {
	Id               string  `json:"id"`
	Status           string  `json:"status"`
	AmountInCents    int64   `json:"amountInCents"`
	Currency         string  `json:"currency"`
	HostedUrl        string  `json:"hostedUrl"`
	ReturnUrl        string  `json:"returnUrl"`
	Reference        string  `json:"reference"`
	Token            string  `json:"token"`
	CardNumberMasked string  `json:"cardNumberMasked"`
	CardType         string  `json:"cardType"`
	RefundedInCents  int64   `json:"refundedInCents"`
	CreatedAt        isoTime `json:"createdAt"`
}

type wireRefundCreate struct {
	AmountInCents  int64  `json:"amountInCents"`
	IdempotencyKey string `json:"idempotencyKey"`
}

type wireRefund struct {
	Id            string  `json:"id"`
	PaymentId     string  `json:"paymentId"`
	AmountInCents int64   `json:"amountInCents"`
	Status        string  `json:"status"`
	CreatedAt     isoTime `json:"createdAt"`
}

func (w *wirePayment) toPayment() Payment {
	st, ok := providerPaymentStatus[w.Status]
	if !ok {
		st = cinema.PaymentUnknown
	}
	return Payment{
		ID: w.Id, Status: st, RawStatus: w.Status, Amount: money(w.AmountInCents, w.Currency),
		HostedURL: w.HostedUrl, ReturnURL: w.ReturnUrl, Reference: w.Reference, Token: w.Token,
		CardNumberMasked: w.CardNumberMasked, CardType: w.CardType,
		Refunded: money(w.RefundedInCents, w.Currency), CreatedAt: w.CreatedAt.Time,
	}
}

// CreatePayment creates a payment (or returns the one created earlier with
// the same idempotency key).
func (p *PaymentClient) CreatePayment(ctx context.Context, r PaymentRequest) (Payment, error) {
	if r.IdempotencyKey == "" {
		r.IdempotencyKey = randomHex(16)
	}
	w, err := call[wirePayment](ctx, p.t, p.base, request{op: OpCreatePayment, method: http.MethodPost, path: "/api/payments", body: wirePaymentCreate{
		AmountInCents: r.AmountCents, Currency: r.Currency, ReturnUrl: r.ReturnURL, IdempotencyKey: r.IdempotencyKey,
		Reference: r.Reference, Description: r.Description,
	}})
	if err != nil {
		return Payment{}, payErr(err)
	}
	return w.toPayment(), nil
}

// GetPayment reads a payment. Retried when the provider is unavailable.
func (p *PaymentClient) GetPayment(ctx context.Context, id string) (Payment, error) {
	w, err := call[wirePayment](ctx, p.t, p.base, request{op: OpGetPayment, method: http.MethodGet, path: "/api/payments/" + escape(id), read: true})
	if err != nil {
		return Payment{}, payErr(err)
	}
	return w.toPayment(), nil
}

// Refund refunds amountCents of a paid payment. ErrPaymentNotPaid for an
// unpaid payment, ErrRefundExceedsRefundable for too large an amount,
// ErrNotFound for an unknown payment.
func (p *PaymentClient) Refund(ctx context.Context, paymentID string, amountCents int64, idempotencyKey string) (Refund, error) {
	if idempotencyKey == "" {
		idempotencyKey = randomHex(16)
	}
	w, err := call[wireRefund](ctx, p.t, p.base, request{op: OpRefund, method: http.MethodPost, path: "/api/payments/" + escape(paymentID) + "/refunds",
		body: wireRefundCreate{AmountInCents: amountCents, IdempotencyKey: idempotencyKey}})
	if err != nil {
		return Refund{}, payErr(err)
	}
	return Refund{ID: w.Id, PaymentID: w.PaymentId, Amount: w.AmountInCents, Status: w.Status, CreatedAt: w.CreatedAt.Time}, nil
}

// payErr refines the provider's error words into the payment sentinels.
func payErr(err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	switch e.Reason {
	case "not_found":
		e.Kind = ErrNotFound
	case "payment_not_paid":
		e.Kind = ErrPaymentNotPaid
	case "amount_exceeds_refundable":
		e.Kind = ErrRefundExceedsRefundable
	default:
		if e.HTTPStatus == http.StatusConflict {
			e.Kind = ErrPaymentNotPaid
		} else if e.HTTPStatus == http.StatusUnprocessableEntity {
			e.Kind = ErrRefundExceedsRefundable
		}
	}
	return e
}
