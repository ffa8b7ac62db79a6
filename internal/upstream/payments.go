package upstream

import (
	"context"
	"strconv"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Payments is the cinema's own payment provider as the edit flows need it:
// take a difference on the provider's hosted page, read it back, give up a
// payment the customer turned back from, and refund (part of) a payment. It
// says nothing of any one provider: StripePayments is the first adapter, and
// docs/payments.md says what another (Adyen, Mollie) must do.
type Payments interface {
	// CreatePayment opens a payment on the provider's hosted page; a repeat
	// with the same idempotency key returns the same payment.
	CreatePayment(ctx context.Context, r PaymentRequest) (Payment, error)
	// GetPayment reads a payment by the id CreatePayment returned, by a
	// booking payment's provider reference, or by the id of one of its charges
	// (what a card receipt names).
	GetPayment(ctx context.Context, id string) (Payment, error)
	// CancelPayment ends a payment that was not paid, so it can no longer be;
	// it returns the payment as it stands (paid, if it was paid meanwhile).
	CancelPayment(ctx context.Context, id string) (Payment, error)
	// Refund refunds amountCents of a paid payment; a repeat with the same
	// key returns the first refund.
	Refund(ctx context.Context, paymentID string, amountCents int64, idempotencyKey string) (Refund, error)
	// GetRefund reads a refund by the id Refund returned, as it stands now: a repeat of
	// Refund returns the first answer, so a refund the provider accepted as pending is
	// followed here until it succeeds or fails.
	GetRefund(ctx context.Context, id string) (Refund, error)
}

// PaymentRequest asks the provider for a payment the customer completes on
// the provider's hosted page.
type PaymentRequest struct {
	AmountCents    int64
	Currency       string
	ReturnURL      string // where the provider sends the browser back (with ?token=, and &cancelled=1 from its back link)
	IdempotencyKey string // a repeat with the same key returns the same payment
	Reference      string // our reference (e.g. the ledger entry)
	Description    string
	Metadata       map[string]string // e.g. the booking, shown in the provider's dashboard
	Locale         string            // the language of the customer's page ("de", "en"); "" lets the provider choose
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
	// ProviderReference is what the ticketing API is told (paymentProviderReference):
	// Stripe's payment intent id. Empty while nothing was paid.
	ProviderReference string
	// Booking is the booking the payment was taken for as its request's Metadata said
	// ("booking": "<cinema>/<number>"); "" when it says none (a payment another system made).
	Booking string
	// CardPresent: the money was taken from a card held to a card reader or terminal (not
	// typed on a web page).
	CardPresent bool
}

// BookingRef is the Metadata value that names a booking, as Payment.Booking reads it back.
func BookingRef(cinemaID string, number int64) string {
	return cinemaID + "/" + strconv.FormatInt(number, 10)
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

// Failed reports whether the provider gave the refund up: no money went back.
func (r Refund) Failed() bool { return r.Status == "failed" || r.Status == "canceled" }
