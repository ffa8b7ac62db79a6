// Package payprovider is a sandbox redirect payment provider: our own stand-in
// for an external card payment service. It keeps payments in memory, serves a
// hosted checkout page and a small JSON API (see docs/wire-profile.md,
// "Payment provider").
package payprovider

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options configure a Provider.
type Options struct {
	// PublicURL is the absolute URL where browsers reach Handler, e.g.
	// http://127.0.0.1:9090/pay. Hosted URLs are PublicURL + "/checkout/" + id.
	PublicURL string
	// APIKey is the bearer key of the API; "" means "sandbox-pay-key".
	APIKey string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// AdoptUnknownPayments makes a refund against a payment this provider never took
	// succeed, as if the payment had been taken before it started: the stand-in provider of
	// a service pointed at another ticketing API, whose bookings were paid elsewhere.
	// Adopted payments are marked so. Never on for a provider whose payments all come
	// from itself (the sandbox's world).
	AdoptUnknownPayments bool
}

// DefaultAPIKey is the API key used when Options.APIKey is empty.
const DefaultAPIKey = "sandbox-pay-key"

// Status is the state of a payment.
type Status string

// Payment states.
const (
	StatusPending           Status = "pending"
	StatusPaid              Status = "paid"
	StatusDeclined          Status = "declined"
	StatusCancelled         Status = "cancelled"
	StatusRefunded          Status = "refunded"
	StatusPartiallyRefunded Status = "partially_refunded"
)

// RefundSucceeded is the status of every refund the sandbox records.
const RefundSucceeded = "succeeded"

// Test card used by the hosted page's Pay button.
const (
	TestCardMasked = "************4242"
	TestCardType   = "VISA"
)

// Payment is one payment as the provider stores it.
type Payment struct {
	ID, Token        string
	Status           Status
	AmountInCents    int64
	Currency         string
	ReturnURL        string
	Reference        string
	Description      string
	IdempotencyKey   string
	CardNumberMasked string
	CardType         string
	RefundedInCents  int64
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Refund is one refund of a payment.
type Refund struct {
	ID, PaymentID, IdempotencyKey string
	AmountInCents                 int64
	Status                        string
	CreatedAt                     time.Time
}

// CreateRequest is the input of Create.
type CreateRequest struct {
	AmountInCents  int64
	Currency       string
	ReturnURL      string
	IdempotencyKey string
	Reference      string
	Description    string
}

// Errors returned by Create and Refund.
var (
	ErrInvalidRequest      = errors.New("invalid request")
	ErrIdempotencyConflict = errors.New("idempotency key reused with a different request")
	ErrNotFound            = errors.New("payment not found")
	ErrNotPaid             = errors.New("payment is not paid")
	ErrExceedsRefundable   = errors.New("amount exceeds the refundable amount")
)

type failRule struct {
	n      int
	status int
}

// Provider is an in-memory sandbox payment provider. It is safe for
// concurrent use.
type Provider struct {
	publicURL string
	apiKey    string
	now       func() time.Time
	adopt     bool

	mu         sync.Mutex
	payments   map[string]*Payment
	createKeys map[string]string   // create idempotency key -> payment id
	refunds    map[string][]Refund // payment id -> refunds, oldest first
	refundKeys map[string]Refund   // payment id + "\x00" + key -> first refund
	subs       []func(Payment)
	fail       map[string]failRule
}

// New returns a Provider with no payments.
func New(opts Options) *Provider {
	p := &Provider{
		publicURL:  strings.TrimRight(opts.PublicURL, "/"),
		apiKey:     opts.APIKey,
		now:        opts.Now,
		adopt:      opts.AdoptUnknownPayments,
		payments:   map[string]*Payment{},
		createKeys: map[string]string{},
		refunds:    map[string][]Refund{},
		refundKeys: map[string]Refund{},
		fail:       map[string]failRule{},
	}
	if p.apiKey == "" {
		p.apiKey = DefaultAPIKey
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// HostedURL is the absolute address of the hosted checkout page of a payment.
func (p *Provider) HostedURL(id string) string {
	return p.publicURL + "/checkout/" + id
}

// Create starts a pending payment. A repeat with the same idempotency key and
// the same amount and currency returns the first payment; the same key with a
// different amount or currency is ErrIdempotencyConflict.
func (p *Provider) Create(req CreateRequest) (Payment, error) {
	pay, _, err := p.create(req)
	return pay, err
}

// create is Create that also reports whether a new payment was made.
func (p *Provider) create(req CreateRequest) (Payment, bool, error) {
	req.Currency = strings.ToUpper(req.Currency)
	if err := validateCreate(req); err != nil {
		return Payment{}, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if req.IdempotencyKey != "" {
		if id, ok := p.createKeys[req.IdempotencyKey]; ok {
			prev := p.payments[id]
			if prev.AmountInCents != req.AmountInCents || prev.Currency != req.Currency {
				return Payment{}, false, ErrIdempotencyConflict
			}
			return *prev, false, nil
		}
	}
	now := p.now()
	pay := &Payment{
		ID:             "pay_" + randomHex(16),
		Token:          randomHex(24),
		Status:         StatusPending,
		AmountInCents:  req.AmountInCents,
		Currency:       req.Currency,
		ReturnURL:      req.ReturnURL,
		Reference:      req.Reference,
		Description:    req.Description,
		IdempotencyKey: req.IdempotencyKey,
		CreatedAt:      now,
		UpdatedAt:      now,
	}
	p.payments[pay.ID] = pay
	if req.IdempotencyKey != "" {
		p.createKeys[req.IdempotencyKey] = pay.ID
	}
	return *pay, true, nil
}

func validateCreate(req CreateRequest) error {
	if req.AmountInCents <= 0 {
		return fmt.Errorf("%w: amountInCents must be greater than 0", ErrInvalidRequest)
	}
	if !validCurrency(req.Currency) {
		return fmt.Errorf("%w: currency must be 3 letters", ErrInvalidRequest)
	}
	u, err := url.Parse(req.ReturnURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: returnUrl must be an absolute http(s) URL", ErrInvalidRequest)
	}
	return nil
}

func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

// Get returns a copy of a payment.
func (p *Provider) Get(id string) (Payment, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pay, ok := p.payments[id]
	if !ok {
		return Payment{}, false
	}
	return *pay, true
}

// Refunds returns the refunds of a payment, oldest first.
func (p *Provider) Refunds(paymentID string) ([]Refund, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.payments[paymentID]; !ok {
		return nil, false
	}
	return append([]Refund{}, p.refunds[paymentID]...), true
}

// Refund refunds part or all of a paid payment. A repeat of an idempotency
// key (per payment) returns the first refund and refunds nothing more.
// Errors: ErrNotFound, ErrInvalidRequest, ErrNotPaid, ErrExceedsRefundable.
func (p *Provider) Refund(paymentID string, amountInCents int64, idempotencyKey string) (Refund, error) {
	rf, _, err := p.refund(paymentID, amountInCents, idempotencyKey)
	return rf, err
}

// refund is Refund that also reports whether a new refund was made.
func (p *Provider) refund(paymentID string, amount int64, key string) (Refund, bool, error) {
	p.mu.Lock()
	pay, ok := p.payments[paymentID]
	if !ok && p.adopt && paymentID != "" && amount > 0 {
		now := p.now()
		pay = &Payment{ID: paymentID, Status: StatusPaid, AmountInCents: amount, Currency: "EUR",
			Reference: "adopted: taken before this provider started", CreatedAt: now, UpdatedAt: now}
		p.payments[paymentID], ok = pay, true
	}
	if !ok {
		p.mu.Unlock()
		return Refund{}, false, ErrNotFound
	}
	if key != "" {
		if rf, ok := p.refundKeys[paymentID+"\x00"+key]; ok {
			p.mu.Unlock()
			return rf, false, nil
		}
	}
	if amount <= 0 {
		p.mu.Unlock()
		return Refund{}, false, fmt.Errorf("%w: amountInCents must be greater than 0", ErrInvalidRequest)
	}
	switch pay.Status {
	case StatusPaid, StatusPartiallyRefunded, StatusRefunded: // refunded: nothing remains
	default:
		p.mu.Unlock()
		return Refund{}, false, ErrNotPaid
	}
	if remaining := pay.AmountInCents - pay.RefundedInCents; amount > remaining {
		p.mu.Unlock()
		return Refund{}, false, fmt.Errorf("%w: %d cents requested, %d cents refundable", ErrExceedsRefundable, amount, remaining)
	}
	now := p.now()
	rf := Refund{
		ID:             "rf_" + randomHex(16),
		PaymentID:      paymentID,
		IdempotencyKey: key,
		AmountInCents:  amount,
		Status:         RefundSucceeded,
		CreatedAt:      now,
	}
	pay.RefundedInCents += amount
	if pay.RefundedInCents == pay.AmountInCents {
		pay.Status = StatusRefunded
	} else {
		pay.Status = StatusPartiallyRefunded
	}
	pay.UpdatedAt = now
	p.refunds[paymentID] = append(p.refunds[paymentID], rf)
	if key != "" {
		p.refundKeys[paymentID+"\x00"+key] = rf
	}
	snap, subs := *pay, p.subscribers()
	p.mu.Unlock()
	notify(subs, snap)
	return rf, true, nil
}

// decide moves a pending payment to paid, declined or cancelled. A payment
// that is no longer pending is returned unchanged.
func (p *Provider) decide(id string, to Status) (Payment, bool) {
	p.mu.Lock()
	pay, ok := p.payments[id]
	if !ok {
		p.mu.Unlock()
		return Payment{}, false
	}
	if pay.Status != StatusPending {
		snap := *pay
		p.mu.Unlock()
		return snap, true
	}
	pay.Status = to
	if to == StatusPaid {
		pay.CardNumberMasked = TestCardMasked
		pay.CardType = TestCardType
	}
	pay.UpdatedAt = p.now()
	snap, subs := *pay, p.subscribers()
	p.mu.Unlock()
	notify(subs, snap)
	return snap, true
}

// SeedPaid records a payment that is already paid, for bookings that exist
// before the sandbox starts. An empty id gets a random one; an id that is
// already known returns the existing payment unchanged.
func (p *Provider) SeedPaid(id string, amountInCents int64, currency, cardNumberMasked, cardType string) Payment {
	if id == "" {
		id = "pay_" + randomHex(16)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.payments[id]; ok {
		return *prev
	}
	now := p.now()
	pay := &Payment{
		ID:               id,
		Token:            randomHex(24),
		Status:           StatusPaid,
		AmountInCents:    amountInCents,
		Currency:         strings.ToUpper(currency),
		CardNumberMasked: cardNumberMasked,
		CardType:         cardType,
		CreatedAt:        now,
		UpdatedAt:        now,
	}
	p.payments[id] = pay
	return *pay
}

// Subscribe registers fn to be called after every change of a payment's
// status or refunded amount (not on Create or SeedPaid). fn runs outside the
// provider's locks, in the goroutine that made the change.
func (p *Provider) Subscribe(fn func(Payment)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.subs = append(p.subs, fn)
}

// subscribers returns a copy of the subscriber list; p.mu must be held.
func (p *Provider) subscribers() []func(Payment) {
	return append([]func(Payment){}, p.subs...)
}

func notify(subs []func(Payment), pay Payment) {
	for _, fn := range subs {
		fn(pay)
	}
}

// SetFailNext makes the next n HTTP API calls of op ("create", "get",
// "refund") answer with the given HTTP status (500 if status is 0) and a
// JSON error. n <= 0 clears the rule.
func (p *Provider) SetFailNext(op string, n int, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n <= 0 {
		delete(p.fail, op)
		return
	}
	if status == 0 {
		status = 500
	}
	p.fail[op] = failRule{n: n, status: status}
}

// takeFailure consumes one injected failure of op, if any.
func (p *Provider) takeFailure(op string) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.fail[op]
	if !ok {
		return 0, false
	}
	r.n--
	if r.n <= 0 {
		delete(p.fail, op)
	} else {
		p.fail[op] = r
	}
	return r.status, true
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
