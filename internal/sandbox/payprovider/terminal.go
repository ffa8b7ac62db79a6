package payprovider

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Stripe Terminal, server-driven: locations, readers registered with a
// simulator's registration code, and the one reader action the sandbox
// models, process_payment_intent. A card "tap" finishes the action: the test
// helper present_payment_method, PresentPaymentMethod, or the /terminal page.

// Reader statuses and action words, as Stripe's.
const (
	ReaderOnline  = "online"
	ReaderOffline = "offline"

	ActionProcessPaymentIntent = "process_payment_intent"

	ActionInProgress = "in_progress"
	ActionSucceeded  = "succeeded"
	ActionFailed     = "failed"
)

// registrationCodes are the registration codes of Stripe's simulated
// readers and the device type each registers.
var registrationCodes = map[string]string{
	"simulated-wpe":  "simulated_wisepos_e",
	"simulated-s700": "simulated_stripe_s700",
}

// defaultTapCard is the card a tap without a number presents (Stripe's
// default for card_present).
const defaultTapCard = "4242424242424242"

// Errors of the Go API of the readers (PresentPaymentMethod,
// SetReaderOffline).
var (
	ErrReaderNotFound = errors.New("terminal reader not found")
	ErrReaderOffline  = errors.New("terminal reader is offline")
	ErrNoReaderAction = errors.New("terminal reader has no payment in progress")
)

// TerminalAddress is a location's address.
type TerminalAddress struct {
	Line1, Line2, City, State, PostalCode string
	Country                               string // ISO 3166-1 alpha-2, upper case
}

// TerminalLocation is a Terminal location (tml_…).
type TerminalLocation struct {
	ID          string
	DisplayName string
	Address     TerminalAddress
	Metadata    map[string]string
	Created     time.Time
	seq         uint64
}

// TerminalReader is a Terminal reader (tmr_…), or a snapshot of one.
type TerminalReader struct {
	ID              string
	Label           string
	LocationID      string
	DeviceType      string // simulated_wisepos_e, simulated_stripe_s700
	SerialNumber    string
	DeviceSwVersion string
	Status          string // ReaderOnline, ReaderOffline
	Metadata        map[string]string
	// Action is the latest action; nil before the first one and after
	// cancel_action (Stripe clears it then).
	Action     *ReaderAction
	Created    time.Time
	LastSeenAt time.Time
	seq        uint64
}

// ReaderAction is a reader's process_payment_intent action.
type ReaderAction struct {
	Type            string // ActionProcessPaymentIntent
	Status          string // ActionInProgress, ActionSucceeded, ActionFailed
	PaymentIntentID string
	// Amount and Currency are the intent's (they cannot change while a
	// reader has it), for the page and Readers.
	Amount                      int64
	Currency                    string
	SkipTipping                 bool
	FailureCode, FailureMessage string // when failed
}

func (r *TerminalReader) clone() TerminalReader {
	c := *r
	c.Metadata = cloneMap(r.Metadata)
	if r.Action != nil {
		a := *r.Action
		c.Action = &a
	}
	return c
}

// busy reports whether a reader has an action in progress.
func (r *TerminalReader) busy() bool {
	return r.Action != nil && r.Action.Status == ActionInProgress
}

// TerminalURL is the absolute address of the page of the simulated readers
// (GET /terminal under the provider's mount).
func (p *Provider) TerminalURL() string {
	return p.publicURL + "/terminal"
}

// Readers returns copies of the readers, oldest first.
func (p *Provider) Readers() []TerminalReader {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]TerminalReader, 0, len(p.readers))
	for _, r := range p.readersLocked() {
		out = append(out, r.clone())
	}
	slices.Reverse(out)
	return out
}

// Reader returns a copy of a reader.
func (p *Provider) Reader(id string) (TerminalReader, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.readers[id]
	if !ok {
		return TerminalReader{}, false
	}
	return r.clone(), true
}

// SeedReader registers a simulated WisePOS E, online, in a location
// "Sandbox box office" (made on first use), as POST /v1/terminal/readers
// would: for a service that expects a reader to exist when it starts. An
// empty id gets a random tmr_ id; an id that is already known returns that
// reader unchanged.
func (p *Provider) SeedReader(id, label string) TerminalReader {
	if id == "" {
		id = newID("tmr_", 24)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.readers[id]; ok {
		return r.clone()
	}
	var loc *TerminalLocation
	for _, l := range p.locations {
		if l.Metadata["sandbox_seed"] == "true" {
			loc = l
		}
	}
	if loc == nil {
		loc = &TerminalLocation{ID: newID("tml_", 14), DisplayName: "Sandbox box office", Address: TerminalAddress{Country: "US"},
			Metadata: map[string]string{"sandbox_seed": "true"}, Created: p.now(), seq: p.nextSeqLocked()}
		p.locations[loc.ID] = loc
	}
	r := p.newReaderLocked(id, "simulated-wpe", label, loc.ID, nil)
	return r.clone()
}

// newReaderLocked registers a reader; the code must be a known one.
func (p *Provider) newReaderLocked(id, code, label, locationID string, md map[string]string) *TerminalReader {
	now := p.now()
	if label == "" {
		label = code // Stripe's default label
	}
	r := &TerminalReader{ID: id, Label: label, LocationID: locationID, DeviceType: registrationCodes[code], SerialNumber: "SIMULATOR",
		Status: ReaderOnline, Metadata: cloneMap(md), Created: now, LastSeenAt: now, seq: p.nextSeqLocked()}
	p.readers[r.ID] = r
	return r
}

// nextSeqLocked numbers locations, readers and refunds in creation order.
func (p *Provider) nextSeqLocked() uint64 {
	p.seq++
	return p.seq
}

// readersLocked is the readers newest first, as Stripe lists them.
func (p *Provider) readersLocked() []*TerminalReader {
	out := make([]*TerminalReader, 0, len(p.readers))
	for _, r := range p.readers {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *TerminalReader) int { return cmp.Compare(b.seq, a.seq) })
	return out
}

// locationsLocked is the locations newest first.
func (p *Provider) locationsLocked() []*TerminalLocation {
	out := make([]*TerminalLocation, 0, len(p.locations))
	for _, l := range p.locations {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *TerminalLocation) int { return cmp.Compare(b.seq, a.seq) })
	return out
}

// SetReaderOffline takes a reader offline (it then refuses actions, as a
// reader that lost its network does: terminal_reader_offline) or back
// online. An action in progress stays in progress.
func (p *Provider) SetReaderOffline(readerID string, offline bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.readers[readerID]
	if r == nil {
		return ErrReaderNotFound
	}
	if offline {
		r.Status = ReaderOffline
	} else {
		r.Status, r.LastSeenAt = ReaderOnline, p.now()
	}
	return nil
}

// PresentPaymentMethod taps a card on a reader whose process_payment_intent
// action is in progress, as the test helper present_payment_method does:
// cardNumber "" is 4242424242424242; a declined test card (…0002, …9995,
// …9987, …0069) fails the action and is not an error. Errors:
// ErrReaderNotFound, ErrReaderOffline, ErrNoReaderAction, ErrInvalidRequest
// (not a card number).
func (p *Provider) PresentPaymentMethod(readerID, cardNumber string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.readers[readerID]
	if r == nil {
		return ErrReaderNotFound
	}
	aerr := p.presentLocked(r, cardNumber, nil)
	switch {
	case aerr == nil:
		return nil
	case aerr.Code == "terminal_reader_offline":
		return ErrReaderOffline
	case aerr.Param == "card_present[number]":
		return fmt.Errorf("%w: %s", ErrInvalidRequest, aerr.Message)
	}
	return fmt.Errorf("%w: %s", ErrNoReaderAction, aerr.Message)
}

// CustomerCancelledCode is the failure_code of an action the customer cancelled on the
// reader's screen (CancelOnReader).
const CustomerCancelledCode = "customer_canceled"

// CancelOnReader is the customer pressing Cancel on the screen of a reader whose
// process_payment_intent action is in progress: the action fails with CustomerCancelledCode,
// nothing is charged, the intent stays requires_payment_method (for another try), and
// terminal.reader.action_failed is sent. Errors: ErrReaderNotFound, ErrReaderOffline,
// ErrNoReaderAction.
func (p *Provider) CancelOnReader(readerID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.readers[readerID]
	switch {
	case r == nil:
		return ErrReaderNotFound
	case r.Status == ReaderOffline:
		return ErrReaderOffline
	case !r.busy():
		return ErrNoReaderAction
	}
	a := r.Action
	a.Status, a.FailureCode, a.FailureMessage = ActionFailed, CustomerCancelledCode, "The customer canceled the payment on the reader."
	r.LastSeenAt = p.now()
	p.queueEventLocked(EventTerminalReaderActionFailed, r.ID, p.readerJSONLocked(r, nil), nil, nil)
	return nil
}

// Errors of the readers, as Stripe words them.

func readerOffline() *apiError {
	return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "terminal_reader_offline", executed: true,
		Message: "Reader is currently offline, please ensure the reader is powered on and connected to the internet before retrying your request. " +
			"Reference the integration guide at https://stripe.com/docs/terminal/payments/collect-card-payment?terminal-sdk-platform=server-driven#handle-errors for detailed guidance."}
}

func readerBusy() *apiError {
	return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "terminal_reader_busy", executed: true,
		Message: "Reader is currently busy processing another request. Cancel its action (POST /v1/terminal/readers/{id}/cancel_action) or wait for it to finish. " +
			"Reference the integration guide at https://stripe.com/docs/terminal/payments/collect-card-payment?terminal-sdk-platform=server-driven#handle-errors for detailed guidance."}
}

func noActionInProgress(r *TerminalReader, what string) *apiError {
	return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, executed: true,
		Message: fmt.Sprintf("Reader %s has no action in progress %s.", r.ID, what)}
}

// processLocked starts a process_payment_intent action on a reader. The
// checks of the intent come first (they are about the request), then those
// of the reader's state.
func (p *Provider) processLocked(r *TerminalReader, piID string, skipTipping bool) *apiError {
	pi := p.intents[piID]
	if pi == nil {
		return noSuchParam("payment_intent", piID, "payment_intent")
	}
	if !slices.Contains(pi.methodTypes(), "card_present") {
		return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Param: "payment_intent", executed: true,
			Message: fmt.Sprintf("The PaymentIntent %s cannot be processed by a reader: its payment_method_types (%s) must include card_present.",
				pi.ID, strings.Join(pi.methodTypes(), ", "))}
	}
	if pi.Status != IntentRequiresPaymentMethod {
		return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "payment_intent_unexpected_state", Param: "payment_intent", executed: true,
			Message: fmt.Sprintf("This PaymentIntent's status is %s, but a reader can only process a PaymentIntent whose status is requires_payment_method.", pi.Status)}
	}
	if r.Status == ReaderOffline {
		return readerOffline()
	}
	if r.busy() {
		return readerBusy()
	}
	for _, other := range p.readers {
		if other.busy() && other.Action.PaymentIntentID == pi.ID {
			// Two readers on one intent could take it twice.
			return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "payment_intent_unexpected_state", Param: "payment_intent", executed: true,
				Message: fmt.Sprintf("The PaymentIntent %s is already being processed by reader %s: cancel that reader's action first.", pi.ID, other.ID)}
		}
	}
	r.Action = &ReaderAction{Type: ActionProcessPaymentIntent, Status: ActionInProgress, PaymentIntentID: pi.ID,
		Amount: pi.Amount, Currency: pi.Currency, SkipTipping: skipTipping}
	r.LastSeenAt = p.now()
	return nil
}

// cancelActionLocked resets a reader: its in-progress action is cleared
// (action null, as Stripe answers cancel_action); the intent stays
// requires_payment_method. No event is sent.
func (p *Provider) cancelActionLocked(r *TerminalReader) *apiError {
	if r.Status == ReaderOffline {
		return readerOffline()
	}
	if !r.busy() {
		return noActionInProgress(r, "to cancel")
	}
	r.Action = nil
	r.LastSeenAt = p.now()
	return nil
}

// presentLocked taps a card on a reader with a process_payment_intent action
// in progress. An approved card makes a card_present charge: the intent
// succeeds (requires_capture with capture_method manual) and the action
// succeeds. A declined card fails the action and leaves the intent
// requires_payment_method with last_payment_error, for another try. The
// events go out either way. req is the API call, nil from the Go API and the
// page.
func (p *Provider) presentLocked(r *TerminalReader, number string, req *apiCall) *apiError {
	if r.Status == ReaderOffline {
		return readerOffline()
	}
	if !r.busy() {
		return noActionInProgress(r, "to present a payment method to: start one with POST /v1/terminal/readers/{id}/process_payment_intent")
	}
	a := r.Action
	pi := p.intents[a.PaymentIntentID]
	if pi == nil || pi.Status != IntentRequiresPaymentMethod {
		return noActionInProgress(r, "with a payable PaymentIntent") // cannot happen: a cancel of the intent clears the action
	}
	if strings.TrimSpace(number) == "" {
		number = defaultTapCard
	}
	c, decl, bad := testCard(number)
	if bad != "" {
		return invalidParam("card_present[number]", "", bad)
	}
	r.LastSeenAt = p.now()
	if decl != nil {
		pi.lastPaymentError = decl
		a.Status, a.FailureCode, a.FailureMessage = ActionFailed, decl.code, decl.message
		p.queueEventLocked(EventPaymentIntentPaymentFailed, pi.ID, p.intentJSONLocked(pi, nil), nil, req)
		p.queueEventLocked(EventTerminalReaderActionFailed, r.ID, p.readerJSONLocked(r, nil), nil, req)
		return nil
	}
	ch := p.newChargeLocked(pi, c, "card_present", "")
	ch.ReaderID = r.ID
	event := EventPaymentIntentSucceeded
	if pi.CaptureMethod == "manual" {
		ch.Captured = false
		pi.Status, event = IntentRequiresCapture, EventPaymentIntentAmountCapturableUpdated
	} else {
		pi.Status, pi.AmountReceived = IntentSucceeded, pi.Amount
	}
	a.Status = ActionSucceeded
	p.queueEventLocked(event, pi.ID, p.intentJSONLocked(pi, nil), nil, req)
	p.queueEventLocked(EventTerminalReaderActionSucceeded, r.ID, p.readerJSONLocked(r, nil), nil, req)
	return nil
}
