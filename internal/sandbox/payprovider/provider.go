// Package payprovider is the sandbox's card payment provider: an in-memory
// stand-in for Stripe. Over HTTP it speaks the part of Stripe's API that the
// service's Stripe adapter uses (Checkout Sessions, Payment Intents, Refunds;
// form-encoded requests, Stripe's objects and errors, Idempotency-Key,
// expand[]), serves a hosted checkout page and sends signed webhooks, so that
// stripe-go pointed at PublicURL (which ends in /pay) works unchanged. See
// docs/sandbox.md ("Payment provider") and docs/wire-profile.md.
//
// The ticketing sandbox also takes its own redirect payments here through the
// Go API (Create, Get, Subscribe): those are payment intents with a hosted page
// that returns with a token, not Checkout Sessions.
package payprovider

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options configure a Provider.
type Options struct {
	// PublicURL is the absolute URL where browsers and stripe-go reach
	// Handler, e.g. http://127.0.0.1:9090/pay (stripe-go's backend URL: it
	// appends /v1/...). Hosted pages are PublicURL + "/checkout/" + id.
	PublicURL string
	// APIKey is the secret key expected as "Authorization: Bearer <key>";
	// "" means DefaultAPIKey.
	APIKey string
	// Now is the clock of the objects (created, expires_at, expiry); nil
	// means time.Now. Webhook signatures always use the wall clock, as
	// stripe-go checks their age against time.Now.
	Now func() time.Time
	// AdoptUnknownPayments makes a refund against a payment intent this
	// provider never saw (an id starting with pi_, with an amount) succeed, as
	// if the payment had been taken before it started: the stand-in provider of
	// a service pointed at another ticketing API, whose bookings were paid
	// elsewhere. The adopted intent gets metadata sandbox_adopted=true. Never
	// on for a provider whose payments all come from itself (the sandbox's
	// world).
	AdoptUnknownPayments bool
	// WebhookURL is the absolute URL that receives the signed events
	// (checkout.session.completed, checkout.session.expired, charge.refunded);
	// "" sends none (Events still records them).
	WebhookURL string
	// WebhookSecret signs the events (Stripe-Signature); "" means
	// DefaultWebhookSecret.
	WebhookSecret string
	// WebhookBackoff is the wait before the first retry of a failed delivery;
	// it doubles for each further retry. 0 means one second.
	WebhookBackoff time.Duration
	// Logger receives delivery failures; nil discards them.
	Logger *slog.Logger
}

// Development credentials used when Options leave them empty.
const (
	DefaultAPIKey        = "sk_test_sandbox"
	DefaultWebhookSecret = "whsec_sandbox"
)

// Status is the state of a connector payment (Create).
type Status string

// Connector payment states.
const (
	StatusPending           Status = "pending"
	StatusPaid              Status = "paid"
	StatusDeclined          Status = "declined"
	StatusCancelled         Status = "cancelled"
	StatusRefunded          Status = "refunded"
	StatusPartiallyRefunded Status = "partially_refunded"
)

// RefundSucceeded is the status of every refund the sandbox makes.
const RefundSucceeded = "succeeded"

// Test card used by the connector page's Pay button.
const (
	TestCardMasked = "************4242"
	TestCardType   = "VISA"
)

// Payment is a connector payment: a redirect payment the ticketing sandbox
// takes for an order (Create), or the view Get gives of any payment intent.
// Its ID is the id of its payment intent (pi_…), so refunds through the
// Stripe API reach it.
type Payment struct {
	ID, Token        string
	Status           Status
	AmountInCents    int64
	Currency         string // upper case
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

// CreateRequest is the input of Create.
type CreateRequest struct {
	AmountInCents  int64
	Currency       string
	ReturnURL      string
	IdempotencyKey string
	Reference      string
	Description    string
}

// Errors of the Go API (Create, Refund).
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
// concurrent use. Close stops its background work.
type Provider struct {
	publicURL     string
	apiKey        string
	now           func() time.Time
	adopt         bool
	webhookSecret string
	backoff       time.Duration
	log           *slog.Logger
	hc            *http.Client

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	bg     sync.WaitGroup // the expiry ticker and webhook deliveries

	mu           sync.Mutex
	webhookURL   string
	payments     map[string]*Payment // connector payments by id
	createKeys   map[string]string   // Create idempotency key -> payment id
	sessions     map[string]*CheckoutSession
	open         map[string]*CheckoutSession // sessions with status open
	intents      map[string]*PaymentIntent
	charges      map[string]*Charge
	refunds      map[string]*Refund
	piRefunds    map[string][]string // payment intent id -> refund ids, oldest first
	goRefundKeys map[string]string   // payment intent id + "\x00" + key -> refund id
	locations    map[string]*TerminalLocation
	readers      map[string]*TerminalReader
	seq          uint64 // creation order of locations and readers (their ids are random), for lists
	idem         map[string]*idemEntry
	events       []*eventRec
	subs         []func(Payment)
	fail         map[string]failRule
	inflight     int           // automatic webhook deliveries under way
	idle         chan struct{} // closed when inflight drops to 0
	ticking      bool
	closed       bool
}

// New returns a Provider with no payments.
func New(opts Options) *Provider {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Provider{
		publicURL:     strings.TrimRight(opts.PublicURL, "/"),
		apiKey:        opts.APIKey,
		now:           opts.Now,
		adopt:         opts.AdoptUnknownPayments,
		webhookSecret: opts.WebhookSecret,
		backoff:       opts.WebhookBackoff,
		log:           opts.Logger,
		hc: &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // Stripe does not follow redirects: a 3xx is a failed delivery
		}},
		ctx:          ctx,
		cancel:       cancel,
		webhookURL:   opts.WebhookURL,
		payments:     map[string]*Payment{},
		createKeys:   map[string]string{},
		sessions:     map[string]*CheckoutSession{},
		open:         map[string]*CheckoutSession{},
		intents:      map[string]*PaymentIntent{},
		charges:      map[string]*Charge{},
		refunds:      map[string]*Refund{},
		piRefunds:    map[string][]string{},
		goRefundKeys: map[string]string{},
		locations:    map[string]*TerminalLocation{},
		readers:      map[string]*TerminalReader{},
		idem:         map[string]*idemEntry{},
		fail:         map[string]failRule{},
	}
	if p.apiKey == "" {
		p.apiKey = DefaultAPIKey
	}
	if p.webhookSecret == "" {
		p.webhookSecret = DefaultWebhookSecret
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.backoff <= 0 {
		p.backoff = time.Second
	}
	if p.log == nil {
		p.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return p
}

// Close stops the expiry ticker and webhook retries and waits for them. The
// provider still answers afterwards, but sends no more webhooks.
func (p *Provider) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.bg.Wait()
}

// SetWebhookURL changes where events are sent ("" for nowhere), for a
// receiver that starts after the provider.
func (p *Provider) SetWebhookURL(u string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.webhookURL = u
}

// WebhookSecret is the secret that signs the events.
func (p *Provider) WebhookSecret() string { return p.webhookSecret }

// HostedURL is the absolute address of the hosted page of a connector
// payment or a Checkout Session.
func (p *Provider) HostedURL(id string) string {
	return p.publicURL + "/checkout/" + id
}

// Create starts a pending connector payment (a payment intent awaiting a
// payment method) for the ticketing sandbox's redirect orders. A repeat with
// the same idempotency key and the same amount and currency returns the first
// payment; the same key with a different amount or currency is
// ErrIdempotencyConflict.
func (p *Provider) Create(req CreateRequest) (Payment, error) {
	req.Currency = strings.ToUpper(req.Currency)
	if err := validateCreate(req); err != nil {
		return Payment{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if req.IdempotencyKey != "" {
		if id, ok := p.createKeys[req.IdempotencyKey]; ok {
			prev := p.payments[id]
			if prev.AmountInCents != req.AmountInCents || prev.Currency != req.Currency {
				return Payment{}, ErrIdempotencyConflict
			}
			return *prev, nil
		}
	}
	now := p.now()
	pi := &PaymentIntent{
		ID: newID("pi_", 24), Status: IntentRequiresPaymentMethod, Amount: req.AmountInCents,
		Currency: strings.ToLower(req.Currency), Description: req.Description,
		Metadata: map[string]string{"reference": req.Reference}, Created: now,
	}
	p.intents[pi.ID] = pi
	pay := &Payment{
		ID:             pi.ID,
		Token:          newID("", 40),
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
	return *pay, nil
}

func validateCreate(req CreateRequest) error {
	if req.AmountInCents <= 0 {
		return fmt.Errorf("%w: amountInCents must be greater than 0", ErrInvalidRequest)
	}
	if !validCurrency(req.Currency) {
		return fmt.Errorf("%w: currency must be 3 letters", ErrInvalidRequest)
	}
	if !absoluteHTTP(req.ReturnURL) {
		return fmt.Errorf("%w: returnUrl must be an absolute http(s) URL", ErrInvalidRequest)
	}
	return nil
}

func absoluteHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
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

// Get returns a connector payment, or the same view of any other payment
// intent the provider knows (seeded, adopted, paid through a Checkout
// Session) or of a Checkout Session (cs_…; Token is the session id, as
// the service's adapter uses it): status pending / paid / partially_refunded /
// refunded / cancelled (a canceled intent, an expired session), amounts, card.
func (p *Provider) Get(id string) (Payment, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked()
	if pay, ok := p.payments[id]; ok {
		return *pay, true
	}
	if pi, ok := p.intents[id]; ok {
		return p.intentViewLocked(pi), true
	}
	s, ok := p.sessions[id]
	if !ok {
		return Payment{}, false
	}
	v := Payment{Status: StatusPending, AmountInCents: s.AmountTotal, Currency: strings.ToUpper(s.Currency)}
	if pi := p.intents[s.PaymentIntentID]; pi != nil {
		v = p.intentViewLocked(pi)
	} else if s.Status == SessionExpired {
		v.Status = StatusCancelled
	}
	v.ID, v.Token, v.ReturnURL, v.Reference, v.CreatedAt = s.ID, s.ID, withSessionID(s.SuccessURL, s.ID), s.ClientReferenceID, s.Created
	return v, true
}

// intentViewLocked is the Payment view of a payment intent.
func (p *Provider) intentViewLocked(pi *PaymentIntent) Payment {
	v := Payment{ID: pi.ID, AmountInCents: pi.Amount, Currency: strings.ToUpper(pi.Currency),
		Reference: pi.Metadata["reference"], Description: pi.Description, CreatedAt: pi.Created, UpdatedAt: pi.Created}
	switch pi.Status {
	case IntentSucceeded:
		v.Status = StatusPaid
	case IntentCanceled:
		v.Status = StatusCancelled
	default:
		v.Status = StatusPending
	}
	if ch := p.charges[pi.LatestChargeID]; ch != nil {
		v.CardNumberMasked, v.CardType = "************"+ch.Last4, strings.ToUpper(ch.Brand)
		if !ch.Captured {
			return v // an authorization (requires_capture), or one released by a cancel: nothing was paid or refunded
		}
		v.RefundedInCents = ch.AmountRefunded
		switch {
		case ch.AmountRefunded > 0 && ch.AmountRefunded >= ch.Amount:
			v.Status = StatusRefunded
		case ch.AmountRefunded > 0:
			v.Status = StatusPartiallyRefunded
		}
	}
	return v
}

// Refunds returns the refunds of a payment intent, oldest first.
func (p *Provider) Refunds(paymentIntentID string) ([]Refund, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.intents[paymentIntentID]; !ok {
		return nil, false
	}
	var out []Refund
	for _, id := range p.piRefunds[paymentIntentID] {
		out = append(out, p.refunds[id].clone())
	}
	return out, true
}

// Refund refunds part or all of a succeeded payment intent, as POST
// /v1/refunds does (and sends charge.refunded). A repeat of an idempotency
// key (per payment intent) returns the first refund and refunds nothing more.
// Errors: ErrNotFound, ErrInvalidRequest, ErrNotPaid, ErrExceedsRefundable.
func (p *Provider) Refund(paymentIntentID string, amountInCents int64, idempotencyKey string) (Refund, error) {
	var eff effects
	p.mu.Lock()
	if idempotencyKey != "" {
		if id, ok := p.goRefundKeys[paymentIntentID+"\x00"+idempotencyKey]; ok {
			rf := p.refunds[id].clone()
			p.mu.Unlock()
			return rf, nil
		}
	}
	if amountInCents <= 0 {
		p.mu.Unlock()
		return Refund{}, fmt.Errorf("%w: amount must be greater than 0", ErrInvalidRequest)
	}
	amount := amountInCents
	rf, aerr := p.refundLocked(refundInput{paymentIntent: paymentIntentID, amount: &amount}, nil, &eff)
	if aerr == nil && idempotencyKey != "" {
		p.goRefundKeys[paymentIntentID+"\x00"+idempotencyKey] = rf.ID
	}
	var out Refund
	if rf != nil {
		out = rf.clone()
	}
	p.mu.Unlock()
	p.apply(eff)
	if aerr != nil {
		switch aerr.Code {
		case "resource_missing":
			return Refund{}, ErrNotFound
		case "payment_intent_unexpected_state":
			return Refund{}, ErrNotPaid
		case "amount_too_large", "charge_already_refunded":
			return Refund{}, fmt.Errorf("%w: %s", ErrExceedsRefundable, aerr.Message)
		}
		return Refund{}, fmt.Errorf("%w: %s", ErrInvalidRequest, aerr.Message)
	}
	return out, nil
}

// decide moves a pending connector payment to paid, declined or cancelled,
// and its payment intent to succeeded (with a charge) or canceled. A payment
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
	now := p.now()
	pi := p.intents[id]
	pay.Status = to
	switch to {
	case StatusPaid:
		pay.CardNumberMasked = TestCardMasked
		pay.CardType = TestCardType
		p.succeedLocked(pi, card{brand: "visa", last4: "4242", funding: "credit"}, "")
	case StatusDeclined:
		pi.lastPaymentError = &cardError{code: "card_declined", declineCode: "generic_decline", message: "Your card was declined."}
		pi.Status, pi.CanceledAt, pi.CancellationReason = IntentCanceled, now, "abandoned"
	default:
		pi.Status, pi.CanceledAt, pi.CancellationReason = IntentCanceled, now, "abandoned"
	}
	pay.UpdatedAt = now
	snap, subs := *pay, p.subscribers()
	p.mu.Unlock()
	notify(subs, snap)
	return snap, true
}

// SeedPaid records a payment intent that already succeeded, with a charge, for
// bookings that exist before the sandbox starts (the default world uses
// pi_seed<booking number>). cardNumberMasked gives the last 4 digits and
// cardType the brand (VISA, MASTERCARD, AMEX, …). An empty id gets a random
// pi_ id; an id that is already known returns the existing intent unchanged.
func (p *Provider) SeedPaid(id string, amountInCents int64, currency, cardNumberMasked, cardType string) PaymentIntent {
	if id == "" {
		id = newID("pi_", 24)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.intents[id]; ok {
		return prev.clone()
	}
	pi := &PaymentIntent{ID: id, Status: IntentRequiresPaymentMethod, Amount: amountInCents,
		Currency: strings.ToLower(currency), Metadata: map[string]string{}, Created: p.now()}
	p.intents[id] = pi
	c := card{brand: brandFromType(cardType), last4: lastDigits(cardNumberMasked), funding: "credit"}
	p.succeedLocked(pi, c, "")
	return pi.clone()
}

// brandFromType maps the ticketing API's card type words to Stripe's brands.
func brandFromType(t string) string {
	switch s := strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(t)); s {
	case "visa", "mastercard", "discover", "jcb", "unionpay":
		return s
	case "amex", "americanexpress":
		return "amex"
	case "diners", "dinersclub":
		return "diners"
	case "mc":
		return "mastercard"
	case "":
		return "visa"
	}
	return "unknown"
}

// lastDigits is the last 4 digits of a masked number, "4242" without any.
func lastDigits(masked string) string {
	var d []byte
	for i := 0; i < len(masked); i++ {
		if masked[i] >= '0' && masked[i] <= '9' {
			d = append(d, masked[i])
		}
	}
	if len(d) < 4 {
		return "4242"
	}
	return string(d[len(d)-4:])
}

// Subscribe registers fn to be called after every change of a connector
// payment's status or refunded amount (not on Create). fn runs outside the
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

// effects are what a change made under p.mu must do after it is released.
type effects struct {
	notify []Payment
}

func (p *Provider) apply(eff effects) {
	if len(eff.notify) == 0 {
		return
	}
	p.mu.Lock()
	subs := p.subscribers()
	p.mu.Unlock()
	for _, pay := range eff.notify {
		notify(subs, pay)
	}
}

// Fault injection operations: the API endpoints, named as in stripe-go.
const (
	OpCheckoutSessionsCreate   = "checkout.sessions.create"
	OpCheckoutSessionsRetrieve = "checkout.sessions.retrieve"
	OpCheckoutSessionsExpire   = "checkout.sessions.expire"
	OpPaymentIntentsRetrieve   = "payment_intents.retrieve"
	OpChargesRetrieve          = "charges.retrieve"
	OpRefundsCreate            = "refunds.create"
	OpRefundsRetrieve          = "refunds.retrieve"
	OpRefundsList              = "refunds.list"

	OpPaymentIntentsCreate                           = "payment_intents.create"
	OpPaymentIntentsCancel                           = "payment_intents.cancel"
	OpTerminalLocationsCreate                        = "terminal.locations.create"
	OpTerminalLocationsRetrieve                      = "terminal.locations.retrieve"
	OpTerminalLocationsList                          = "terminal.locations.list"
	OpTerminalReadersCreate                          = "terminal.readers.create"
	OpTerminalReadersRetrieve                        = "terminal.readers.retrieve"
	OpTerminalReadersUpdate                          = "terminal.readers.update"
	OpTerminalReadersDelete                          = "terminal.readers.delete"
	OpTerminalReadersList                            = "terminal.readers.list"
	OpTerminalReadersProcessPaymentIntent            = "terminal.readers.process_payment_intent"
	OpTerminalReadersCancelAction                    = "terminal.readers.cancel_action"
	OpTestHelpersTerminalReadersPresentPaymentMethod = "test_helpers.terminal.readers.present_payment_method"
)

// opAliases are the operation names of the provider's former API.
var opAliases = map[string]string{
	"create": OpCheckoutSessionsCreate,
	"get":    OpCheckoutSessionsRetrieve,
	"refund": OpRefundsCreate,
}

// SetFailNext makes the next n API calls of op (OpCheckoutSessionsCreate,
// …; the old names "create", "get" and "refund" stand for the session create,
// session retrieve and refund create) answer with the given HTTP status (500
// if status is 0) and a Stripe error: type api_error for 5xx. The failure
// happens before the call does anything, so a retry with the same
// Idempotency-Key then runs the call. n <= 0 clears the rule.
func (p *Provider) SetFailNext(op string, n int, status int) {
	if a, ok := opAliases[op]; ok {
		op = a
	}
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

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newID is prefix + n random characters of [0-9A-Za-z], like Stripe's ids.
func newID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return prefix + string(b)
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return maps.Clone(m)
}
