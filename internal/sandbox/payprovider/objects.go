package payprovider

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status words of Stripe's objects.
const (
	SessionOpen     = "open"
	SessionComplete = "complete"
	SessionExpired  = "expired"

	SessionUnpaid = "unpaid"
	SessionPaid   = "paid"

	IntentRequiresPaymentMethod = "requires_payment_method"
	IntentRequiresCapture       = "requires_capture" // capture_method=manual, after an approved card
	IntentSucceeded             = "succeeded"
	IntentCanceled              = "canceled"
)

// sessionLifetime is the default time to expires_at; the allowed range of
// expires_at is [minSessionLifetime, sessionLifetime] from creation.
const (
	sessionLifetime    = 24 * time.Hour
	minSessionLifetime = 30 * time.Minute
)

// LineItem is one line of a Checkout Session (price_data only).
type LineItem struct {
	Name, Description string
	UnitAmount        int64
	Quantity          int64
}

// CheckoutSession is a Checkout Session (mode payment) as the provider keeps
// it.
type CheckoutSession struct {
	ID                string
	Status            string // SessionOpen, SessionComplete, SessionExpired
	PaymentStatus     string // SessionUnpaid, SessionPaid
	AmountTotal       int64
	Currency          string // lower case
	LineItems         []LineItem
	ClientReferenceID string
	CustomerEmail     string
	Metadata          map[string]string
	PaymentIntentID   string // "" until paid
	SuccessURL        string
	CancelURL         string
	Locale            string
	Created           time.Time
	ExpiresAt         time.Time

	piMetadata    map[string]string // payment_intent_data[metadata]
	piDescription string
	receiptEmail  string
}

func (s *CheckoutSession) clone() CheckoutSession {
	c := *s
	c.LineItems = slices.Clone(s.LineItems)
	c.Metadata = cloneMap(s.Metadata)
	c.piMetadata = cloneMap(s.piMetadata)
	return c
}

// PaymentIntent is a payment intent.
type PaymentIntent struct {
	ID                 string
	Status             string // IntentRequiresPaymentMethod, IntentRequiresCapture, IntentSucceeded, IntentCanceled
	Amount             int64
	AmountReceived     int64
	Currency           string // lower case
	Description        string
	ReceiptEmail       string
	Metadata           map[string]string
	LatestChargeID     string
	PaymentMethodID    string
	Created            time.Time
	CanceledAt         time.Time
	CancellationReason string
	// CaptureMethod is automatic, automatic_async or manual; "" (the
	// intents of sessions and connector payments) is automatic_async.
	CaptureMethod string
	// PaymentMethodTypes: card and/or card_present; nil is [card].
	PaymentMethodTypes        []string
	StatementDescriptorSuffix string
	lastPaymentError          *cardError
}

// captureMethod is the intent's capture_method as Stripe writes it.
func (pi *PaymentIntent) captureMethod() string {
	if pi.CaptureMethod == "" {
		return "automatic_async"
	}
	return pi.CaptureMethod
}

// methodTypes is the intent's payment_method_types as Stripe writes it.
func (pi *PaymentIntent) methodTypes() []string {
	if len(pi.PaymentMethodTypes) == 0 {
		return []string{"card"}
	}
	return slices.Clone(pi.PaymentMethodTypes)
}

func (pi *PaymentIntent) clone() PaymentIntent {
	c := *pi
	c.Metadata = cloneMap(pi.Metadata)
	c.PaymentMethodTypes = slices.Clone(pi.PaymentMethodTypes)
	if pi.lastPaymentError != nil {
		e := *pi.lastPaymentError
		c.lastPaymentError = &e
	}
	return c
}

// Charge is the successful charge of a payment intent.
type Charge struct {
	ID              string
	PaymentIntentID string
	Amount          int64
	AmountRefunded  int64
	Refunded        bool
	// Captured is false for an authorization of a capture_method=manual
	// intent (requires_capture), and after it was released by a cancel.
	Captured        bool
	Currency        string
	Brand, Last4    string // card
	Funding         string
	ExpMonth        int
	ExpYear         int
	PaymentMethodID string
	// PaymentMethodType is "card" (hosted page, seeds) or "card_present" (a
	// Terminal reader, ReaderID): payment_method_details has the one or the
	// other, as Stripe's charges do.
	PaymentMethodType string
	ReaderID          string
	Description       string
	ReceiptEmail      string
	Metadata          map[string]string
	Created           time.Time
}

func (c *Charge) clone() Charge {
	out := *c
	out.Metadata = cloneMap(c.Metadata)
	return out
}

// Refund is a refund of (part of) a charge.
type Refund struct {
	ID              string
	PaymentIntentID string
	ChargeID        string
	Amount          int64
	Currency        string
	Status          string // RefundSucceeded
	Reason          string
	Metadata        map[string]string
	Created         time.Time
	seq             uint64 // creation order: refunds made in one instant still list newest first
}

func (r *Refund) clone() Refund {
	out := *r
	out.Metadata = cloneMap(r.Metadata)
	return out
}

// cardError is a payment intent's last_payment_error.
type cardError struct {
	code, declineCode, message string
}

// CheckoutSession returns a copy of a session (expired first if due).
func (p *Provider) CheckoutSession(id string) (CheckoutSession, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked()
	s, ok := p.sessions[id]
	if !ok {
		return CheckoutSession{}, false
	}
	return s.clone(), true
}

// PaymentIntent returns a copy of a payment intent.
func (p *Provider) PaymentIntent(id string) (PaymentIntent, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pi, ok := p.intents[id]
	if !ok {
		return PaymentIntent{}, false
	}
	return pi.clone(), true
}

// Charge returns a copy of a charge.
func (p *Provider) Charge(id string) (Charge, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.charges[id]
	if !ok {
		return Charge{}, false
	}
	return c.clone(), true
}

// card is what a payment used.
type card struct {
	brand, last4, funding string
}

// succeedLocked moves a payment intent to succeeded with a new card charge.
func (p *Provider) succeedLocked(pi *PaymentIntent, c card, receiptEmail string) *Charge {
	ch := p.newChargeLocked(pi, c, "card", receiptEmail)
	pi.Status, pi.AmountReceived = IntentSucceeded, pi.Amount
	if receiptEmail != "" {
		pi.ReceiptEmail = receiptEmail
	}
	return ch
}

// newChargeLocked makes a captured charge of the intent's amount with a new
// payment method and makes it the intent's latest charge; the caller sets
// the intent's status.
func (p *Provider) newChargeLocked(pi *PaymentIntent, c card, methodType, receiptEmail string) *Charge {
	pm := newID("pm_", 24)
	ch := &Charge{
		ID: newID("ch_", 24), PaymentIntentID: pi.ID, Amount: pi.Amount, Captured: true, Currency: pi.Currency,
		Brand: c.brand, Last4: c.last4, Funding: c.funding, ExpMonth: 12, ExpYear: 2030,
		PaymentMethodID: pm, PaymentMethodType: methodType, Description: pi.Description, ReceiptEmail: receiptEmail,
		Metadata: cloneMap(pi.Metadata), Created: p.now(),
	}
	p.charges[ch.ID] = ch
	pi.LatestChargeID, pi.PaymentMethodID, pi.lastPaymentError = ch.ID, pm, nil
	return ch
}

// refundInput is a refund request, from the API or the Go API.
type refundInput struct {
	paymentIntent, charge string
	amount                *int64 // nil: what remains refundable
	reason                string
	metadata              map[string]string
}

// refundLocked refunds a charge (named directly or as a payment intent's
// latest charge), updates it and a connector payment on the same intent, and
// sends charge.refunded. req is the API request, nil from the Go API.
func (p *Provider) refundLocked(in refundInput, req *apiCall, eff *effects) (*Refund, *apiError) {
	ch, e := p.chargeToRefundLocked(in)
	if e != nil {
		return nil, e
	}
	amount, e := refundAmount(in, ch)
	if e != nil {
		return nil, e
	}
	prevRefunded, prevFlag := ch.AmountRefunded, ch.Refunded
	rf := &Refund{
		ID: newID("re_", 24), PaymentIntentID: ch.PaymentIntentID, ChargeID: ch.ID, Amount: amount, Currency: ch.Currency,
		Status: RefundSucceeded, Reason: in.reason, Metadata: cloneMap(in.metadata), Created: p.now(), seq: p.nextSeqLocked(),
	}
	p.refunds[rf.ID] = rf
	p.piRefunds[ch.PaymentIntentID] = append(p.piRefunds[ch.PaymentIntentID], rf.ID)
	ch.AmountRefunded += amount
	ch.Refunded = ch.AmountRefunded >= ch.Amount
	p.notePaymentRefundedLocked(ch, eff)
	prev := map[string]any{"amount_refunded": prevRefunded}
	if prevFlag != ch.Refunded {
		prev["refunded"] = prevFlag
	}
	p.queueEventLocked(EventChargeRefunded, ch.ID, p.chargeJSONLocked(ch), prev, req)
	return rf, nil
}

// chargeToRefundLocked is the charge a refund names: directly (captured, and of the intent
// if one is named too) or as the latest charge of a succeeded payment intent.
func (p *Provider) chargeToRefundLocked(in refundInput) (*Charge, *apiError) {
	switch {
	case in.charge != "":
		ch := p.charges[in.charge]
		if ch == nil {
			return nil, noSuchParam("charge", in.charge, "charge")
		}
		if in.paymentIntent != "" && in.paymentIntent != ch.PaymentIntentID {
			return nil, invalidParam("payment_intent", "", fmt.Sprintf("The charge %s does not belong to the PaymentIntent %s.", in.charge, in.paymentIntent))
		}
		if !ch.Captured {
			// Stripe would release the authorization; the sandbox does that only through a cancel of the intent.
			return nil, &apiError{status: 400, Type: typeInvalidRequest, Param: "charge", executed: true,
				Message: fmt.Sprintf("The charge %s has not been captured: cancel its PaymentIntent (%s) to release the authorization.", ch.ID, ch.PaymentIntentID)}
		}
		return ch, nil
	case in.paymentIntent != "":
		pi := p.intentToRefundLocked(in)
		if pi == nil {
			return nil, noSuchParam("payment_intent", in.paymentIntent, "payment_intent")
		}
		if pi.Status != IntentSucceeded {
			return nil, &apiError{status: 400, Type: typeInvalidRequest, Code: "payment_intent_unexpected_state", Param: "payment_intent", executed: true,
				Message: fmt.Sprintf("This PaymentIntent (%s) does not have a successful charge to refund.", pi.ID)}
		}
		return p.charges[pi.LatestChargeID], nil
	}
	return nil, &apiError{status: 400, Type: typeInvalidRequest, Code: "parameter_missing",
		Message: "One of the following params should be provided for this request: payment_intent or charge."}
}

// intentToRefundLocked is the payment intent a refund names, nil when there is none. A
// provider that adopts unknown intents takes one it never saw as paid by card (money taken
// before it started), so that it can be refunded.
func (p *Provider) intentToRefundLocked(in refundInput) *PaymentIntent {
	pi := p.intents[in.paymentIntent]
	if pi == nil && p.adopt && strings.HasPrefix(in.paymentIntent, "pi_") && in.amount != nil && *in.amount > 0 {
		pi = &PaymentIntent{ID: in.paymentIntent, Status: IntentRequiresPaymentMethod, Amount: *in.amount, Currency: "eur",
			Description: "adopted: taken before this provider started", Metadata: map[string]string{"sandbox_adopted": "true"}, Created: p.now()}
		p.intents[pi.ID] = pi
		p.succeedLocked(pi, card{brand: "visa", last4: "4242", funding: "credit"}, "")
	}
	return pi
}

// refundAmount is what a refund of charge ch gives back: the amount asked for, at most what
// remains of the charge, or all of that.
func refundAmount(in refundInput, ch *Charge) (int64, *apiError) {
	remaining := ch.Amount - ch.AmountRefunded
	if remaining <= 0 {
		return 0, &apiError{status: 400, Type: typeInvalidRequest, Code: "charge_already_refunded", executed: true,
			Message: fmt.Sprintf("Charge %s has already been refunded.", ch.ID)}
	}
	if in.amount == nil {
		return remaining, nil
	}
	amount := *in.amount
	if amount <= 0 {
		return 0, invalidParam("amount", "parameter_invalid_integer", "This value must be greater than or equal to 1.")
	}
	if amount > remaining {
		return 0, &apiError{status: 400, Type: typeInvalidRequest, Code: "amount_too_large", Param: "amount", executed: true,
			Message: fmt.Sprintf("Refund amount (%s) is greater than unrefunded amount on charge (%s)",
				formatAmount(amount, strings.ToUpper(ch.Currency)), formatAmount(remaining, strings.ToUpper(ch.Currency)))}
	}
	return amount, nil
}

// notePaymentRefundedLocked brings the connector payment on the charge's intent (if any) up
// to the refunded charge, and tells the connector.
func (p *Provider) notePaymentRefundedLocked(ch *Charge, eff *effects) {
	pay := p.payments[ch.PaymentIntentID]
	if pay == nil {
		return
	}
	pay.RefundedInCents = ch.AmountRefunded
	if ch.Refunded {
		pay.Status = StatusRefunded
	} else {
		pay.Status = StatusPartiallyRefunded
	}
	pay.UpdatedAt = p.now()
	eff.notify = append(eff.notify, *pay)
}

// sweepLocked expires the open sessions whose expires_at has passed and sends
// checkout.session.expired for each (as Stripe does, with no request).
func (p *Provider) sweepLocked() {
	if len(p.open) == 0 {
		return
	}
	now := p.now()
	var due []*CheckoutSession
	for _, s := range p.open {
		if !now.Before(s.ExpiresAt) {
			due = append(due, s)
		}
	}
	slices.SortFunc(due, func(a, b *CheckoutSession) int { return a.ExpiresAt.Compare(b.ExpiresAt) })
	for _, s := range due {
		p.expireLocked(s, nil)
	}
}

// expireLocked expires an open session and sends checkout.session.expired.
func (p *Provider) expireLocked(s *CheckoutSession, req *apiCall) {
	s.Status = SessionExpired
	delete(p.open, s.ID)
	p.queueEventLocked(EventCheckoutSessionExpired, s.ID, p.sessionJSONLocked(s, nil), nil, req)
}

// payResult is the outcome of pressing Pay on a session's hosted page.
type payResult struct {
	declined *cardError // the card was declined; the session stays open
	invalid  string     // the card number is not one
	redirect string     // success_url with the session id
}

// paySessionLocked pays an open session with a card number.
func (p *Provider) paySessionLocked(s *CheckoutSession, number string) payResult {
	c, decl, bad := testCard(number)
	if bad != "" {
		return payResult{invalid: bad}
	}
	if decl != nil {
		return payResult{declined: decl}
	}
	pi := &PaymentIntent{ID: newID("pi_", 24), Status: IntentRequiresPaymentMethod, Amount: s.AmountTotal, Currency: s.Currency,
		Description: s.piDescription, Metadata: cloneMap(s.piMetadata), Created: p.now()}
	p.intents[pi.ID] = pi
	receipt := s.receiptEmail
	p.succeedLocked(pi, c, receipt)
	s.Status, s.PaymentStatus, s.PaymentIntentID = SessionComplete, SessionPaid, pi.ID
	delete(p.open, s.ID)
	p.queueEventLocked(EventCheckoutSessionCompleted, s.ID, p.sessionJSONLocked(s, nil), nil, nil)
	return payResult{redirect: withSessionID(s.SuccessURL, s.ID)}
}

// withSessionID replaces Stripe's {CHECKOUT_SESSION_ID} template.
func withSessionID(u, id string) string {
	return strings.ReplaceAll(u, "{CHECKOUT_SESSION_ID}", id)
}

// testCard decides a payment with one of Stripe's test card numbers: the
// card used, or why it failed. Numbers ending 0002 (generic), 9995
// (insufficient funds), 9987 (lost card) and 0069 (expired) decline; other
// numbers must pass the Luhn check.
func testCard(number string) (card, *cardError, string) {
	digits := strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9':
			return r
		case r == ' ' || r == '-':
			return -1
		}
		return 'x'
	}, number)
	if len(digits) < 12 || len(digits) > 19 || strings.Contains(digits, "x") {
		return card{}, nil, "Your card number is invalid."
	}
	switch {
	case strings.HasSuffix(digits, "0002"):
		return card{}, &cardError{code: "card_declined", declineCode: "generic_decline", message: "Your card was declined."}, ""
	case strings.HasSuffix(digits, "9995"):
		return card{}, &cardError{code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds."}, ""
	case strings.HasSuffix(digits, "9987"):
		return card{}, &cardError{code: "card_declined", declineCode: "lost_card", message: "Your card was declined."}, ""
	case strings.HasSuffix(digits, "0069"):
		return card{}, &cardError{code: "expired_card", declineCode: "expired_card", message: "Your card has expired."}, ""
	}
	if !luhn(digits) {
		return card{}, nil, "Your card number is invalid."
	}
	return card{brand: cardBrand(digits), last4: digits[len(digits)-4:], funding: "credit"}, nil, ""
}

func luhn(digits string) bool {
	sum := 0
	for i := 0; i < len(digits); i++ {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func cardBrand(d string) string {
	prefix := func(n int) int {
		v := 0
		for i := 0; i < n && i < len(d); i++ {
			v = v*10 + int(d[i]-'0')
		}
		return v
	}
	switch {
	case d[0] == '4':
		return "visa"
	case prefix(2) >= 51 && prefix(2) <= 55, prefix(4) >= 2221 && prefix(4) <= 2720:
		return "mastercard"
	case prefix(2) == 34 || prefix(2) == 37:
		return "amex"
	case prefix(4) == 6011, prefix(2) == 65, prefix(3) >= 644 && prefix(3) <= 649:
		return "discover"
	case prefix(2) == 35:
		return "jcb"
	case prefix(2) == 36, prefix(2) == 30, prefix(2) == 38:
		return "diners"
	case prefix(2) == 62:
		return "unionpay"
	}
	return "unknown"
}

// minimumCharge is Stripe's minimum amount for a payment in a currency, in
// minor units (Stripe refuses a Checkout Session below it).
var minimumCharge = map[string]int64{
	"usd": 50, "eur": 50, "gbp": 30, "chf": 50, "aud": 50, "cad": 50, "nzd": 50, "sgd": 50,
	"dkk": 250, "nok": 300, "sek": 300, "pln": 200, "czk": 1500, "huf": 17500, "ron": 200,
	"bgn": 100, "hkd": 400, "jpy": 50, "mxn": 1000, "inr": 50, "brl": 50, "aed": 200, "thb": 1000, "myr": 200,
}
