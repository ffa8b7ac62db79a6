package upstream

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/stripe/stripe-go/v85"
)

// CardReaders are the payment provider's card readers at the box office and the kiosk, driven
// from the server (Stripe Terminal's server-driven integration): the server makes a
// card-present payment of the exact amount, hands it to the device's reader, and reads the
// outcome back from the provider. Nobody types a reference; a card-present payment is refunded
// to itself through Payments.Refund like any other.
type CardReaders interface {
	// Mode is "test" or "live": test mode registers simulated readers ("simulated-wpe").
	Mode() string
	// ListReaders lists the account's readers.
	ListReaders(ctx context.Context) ([]Reader, error)
	// RegisterReader registers a reader by the code it shows (test mode: "simulated-wpe"
	// makes a simulated reader) under label at location (EnsureLocation).
	RegisterReader(ctx context.Context, code, label, location string) (Reader, error)
	// EnsureLocation returns the id of the location named name, making it (in country, two
	// letters) when there is none.
	EnsureLocation(ctx context.Context, name, country string) (string, error)
	// GetReader reads a reader and what it is doing.
	GetReader(ctx context.Context, id string) (Reader, error)
	// StartReaderPayment makes a card-present payment (a repeat with the same idempotency key
	// makes none) and hands it to the reader, which asks for the card.
	StartReaderPayment(ctx context.Context, r ReaderPaymentRequest) (Payment, error)
	// CancelReaderAction stops what the reader is doing (asking for a card).
	CancelReaderAction(ctx context.Context, readerID string) (Reader, error)
}

// ReaderPaymentRequest is a card-present payment for a reader.
type ReaderPaymentRequest struct {
	ReaderID       string
	AmountCents    int64
	Currency       string
	IdempotencyKey string
	Description    string
	Metadata       map[string]string
}

// Reader is a card reader.
type Reader struct {
	ID, Label, Location, DeviceType string
	Online                          bool
	Action                          ReaderAction
}

// ReaderActionState is where the reader's latest action stands.
type ReaderActionState string

const (
	ReaderIdle       ReaderActionState = ""            // no action
	ReaderInProgress ReaderActionState = "in_progress" // asking for the card
	ReaderSucceeded  ReaderActionState = "succeeded"
	ReaderFailed     ReaderActionState = "failed" // declined, cancelled, timed out
)

// ReaderAction is the reader's latest action.
type ReaderAction struct {
	State          ReaderActionState
	PaymentID      string // the card-present payment it processes
	AmountCents    int64  // that payment's amount, when the provider said
	FailureCode    string // the provider's code ("card_declined"), when failed
	FailureMessage string
	// Cancelled: the action failed because the customer cancelled it on the reader, not
	// because the card was declined.
	Cancelled bool
}

var (
	// ErrReaderOffline: the reader does not answer (off, no network).
	ErrReaderOffline = errors.New("upstream: card reader offline")
	// ErrReaderBusy: the reader is doing something else.
	ErrReaderBusy = errors.New("upstream: card reader busy")
)

var _ CardReaders = (*StripePayments)(nil)

// readerExpand reads a reader with the amount of the payment it takes.
const readerExpand = "action.process_payment_intent.payment_intent"

func (s *StripePayments) ListReaders(ctx context.Context) ([]Reader, error) {
	p := &stripe.TerminalReaderListParams{}
	p.AddExpand("data." + readerExpand)
	var out []Reader
	for r, err := range s.sc.V1TerminalReaders.List(ctx, p).All(ctx) {
		if err != nil {
			return nil, readerError(OpListReaders, err)
		}
		out = append(out, readerOf(r))
	}
	return out, nil
}

func (s *StripePayments) RegisterReader(ctx context.Context, code, label, location string) (Reader, error) {
	p := &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String(strings.TrimSpace(code)), Location: stripe.String(location)}
	if label != "" {
		p.Label = stripe.String(label)
	}
	r, err := s.sc.V1TerminalReaders.Create(ctx, p)
	if err != nil {
		return Reader{}, readerError(OpRegisterReader, err)
	}
	return readerOf(r), nil
}

func (s *StripePayments) EnsureLocation(ctx context.Context, name, country string) (string, error) {
	for l, err := range s.sc.V1TerminalLocations.List(ctx, &stripe.TerminalLocationListParams{}).All(ctx) {
		if err != nil {
			return "", stripeError(OpEnsureLocation, err)
		}
		if l.DisplayName == name {
			return l.ID, nil
		}
	}
	l, err := s.sc.V1TerminalLocations.Create(ctx, &stripe.TerminalLocationCreateParams{DisplayName: stripe.String(name),
		Address: &stripe.AddressParams{Country: stripe.String(country)}})
	if err != nil {
		return "", stripeError(OpEnsureLocation, err)
	}
	return l.ID, nil
}

func (s *StripePayments) GetReader(ctx context.Context, id string) (Reader, error) {
	p := &stripe.TerminalReaderRetrieveParams{}
	p.AddExpand(readerExpand)
	r, err := s.sc.V1TerminalReaders.Retrieve(ctx, id, p)
	if err != nil {
		return Reader{}, readerError(OpGetReader, err)
	}
	return readerOf(r), nil
}

func (s *StripePayments) StartReaderPayment(ctx context.Context, r ReaderPaymentRequest) (Payment, error) {
	ip := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(r.AmountCents),
		Currency:           stripe.String(strings.ToLower(r.Currency)),
		PaymentMethodTypes: []*string{stripe.String("card_present")},
		CaptureMethod:      stripe.String(string(stripe.PaymentIntentCaptureMethodAutomatic)),
	}
	if r.Description != "" {
		ip.Description = stripe.String(r.Description)
	}
	for k, v := range r.Metadata {
		ip.AddMetadata(k, v)
	}
	if r.IdempotencyKey != "" {
		ip.SetIdempotencyKey("reader-intent:" + r.IdempotencyKey)
	}
	pi, err := s.sc.V1PaymentIntents.Create(ctx, ip)
	if err != nil {
		return Payment{}, stripeError(OpStartReaderPayment, err)
	}
	pp := &stripe.TerminalReaderProcessPaymentIntentParams{PaymentIntent: stripe.String(pi.ID)}
	if r.IdempotencyKey != "" {
		pp.SetIdempotencyKey("reader-process:" + r.IdempotencyKey)
	}
	if _, err := s.sc.V1TerminalReaders.ProcessPaymentIntent(ctx, r.ReaderID, pp); err != nil {
		return intentPayment(pi), readerError(OpStartReaderPayment, err)
	}
	return intentPayment(pi), nil
}

func (s *StripePayments) CancelReaderAction(ctx context.Context, readerID string) (Reader, error) {
	r, err := s.sc.V1TerminalReaders.CancelAction(ctx, readerID, &stripe.TerminalReaderCancelActionParams{})
	if err != nil {
		return Reader{}, readerError(OpCancelReaderAction, err)
	}
	return readerOf(r), nil
}

// cancelIntent ends a card-present payment nobody will finish (the reader's action was stopped,
// the card declined): it can no longer be paid. A paid one stays paid.
func (s *StripePayments) cancelIntent(ctx context.Context, id string) (Payment, error) {
	if _, err := s.sc.V1PaymentIntents.Cancel(ctx, id, &stripe.PaymentIntentCancelParams{}); err != nil {
		var se *stripe.Error
		if !errors.As(err, &se) || se.HTTPStatusCode != http.StatusBadRequest {
			return Payment{}, stripeError(OpCancelPayment, err)
		}
		// Not cancellable any more (paid, or cancelled already): the read says which.
	}
	return s.GetPayment(ctx, id)
}

// readerError is stripeError with the reader's own refusals named.
func readerError(op string, err error) error {
	e := stripeError(op, err)
	var ue *Error
	if !errors.As(e, &ue) {
		return e
	}
	switch ue.Reason {
	case "terminal_reader_offline", "terminal_reader_timeout":
		ue.Kind = ErrReaderOffline
	case "terminal_reader_busy":
		ue.Kind = ErrReaderBusy
	}
	return ue
}

func readerOf(r *stripe.TerminalReader) Reader {
	out := Reader{ID: r.ID, Label: r.Label, DeviceType: string(r.DeviceType), Online: r.Status == stripe.TerminalReaderStatusOnline}
	if r.Location != nil {
		out.Location = r.Location.ID
	}
	if a := r.Action; a != nil {
		out.Action = ReaderAction{State: ReaderActionState(a.Status), FailureCode: a.FailureCode, FailureMessage: a.FailureMessage,
			Cancelled: a.Status == stripe.TerminalReaderActionStatusFailed && strings.Contains(a.FailureCode, "cancel")}
		if p := a.ProcessPaymentIntent; p != nil && p.PaymentIntent != nil {
			out.Action.PaymentID, out.Action.AmountCents = p.PaymentIntent.ID, p.PaymentIntent.Amount
		}
	}
	return out
}
