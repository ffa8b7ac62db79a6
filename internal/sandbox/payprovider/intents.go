package payprovider

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Payment intents made through the API, for a Terminal reader to take
// (card_present) — the intents of Checkout Sessions and connector payments
// are made by the provider itself.

var (
	intentCreateParams = hash(map[string]*param{
		"amount":                      scalar,
		"currency":                    scalar,
		"payment_method_types":        list(scalar),
		"capture_method":              scalar,
		"description":                 scalar,
		"metadata":                    strMap,
		"statement_descriptor_suffix": scalar,
		"expand":                      list(scalar),
	})

	intentCancelParams = hash(map[string]*param{
		"cancellation_reason": scalar,
		"expand":              list(scalar),
	})
)

// cancelableIntent are the statuses Stripe lets a cancel end; the sandbox
// makes only the first two, the others are Stripe's.
var cancelableIntent = []string{IntentRequiresPaymentMethod, IntentRequiresCapture, "requires_confirmation", "requires_action", "processing"}

func (p *Provider) createIntent(c *apiCall, _ *effects) (any, *apiError) {
	pi, err := newIntent(c.form)
	if err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, intentExpandable)
	if err != nil {
		return nil, err
	}
	pi.Created = p.now()
	p.intents[pi.ID] = pi
	return p.intentJSONLocked(pi, exp), nil
}

func (p *Provider) cancelIntent(c *apiCall, eff *effects) (any, *apiError) {
	if err := c.form.check(intentCancelParams, ""); err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, intentExpandable)
	if err != nil {
		return nil, err
	}
	reason, _ := c.form.str("cancellation_reason")
	switch reason {
	case "", "duplicate", "fraudulent", "requested_by_customer", "abandoned":
	default:
		return nil, invalidParam("cancellation_reason", "", "Invalid cancellation_reason: must be one of abandoned, duplicate, fraudulent, or requested_by_customer")
	}
	pi := p.intents[c.id]
	if pi == nil {
		return nil, noSuch("payment_intent", c.id, "id")
	}
	if err := p.cancelIntentLocked(pi, reason, c, eff); err != nil {
		return nil, err
	}
	return p.intentJSONLocked(pi, exp), nil
}

// newIntent validates the parameters of POST /v1/payment_intents and builds
// the intent (requires_payment_method).
func newIntent(f *fnode) (*PaymentIntent, *apiError) {
	if err := f.check(intentCreateParams, ""); err != nil {
		return nil, err
	}
	amount, ok, err := f.integer("amount", "amount")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, missingParam("amount")
	}
	cur, err := requiredStr(f, "currency", "currency")
	if err != nil {
		return nil, err
	}
	cur = strings.ToLower(cur)
	if !validCurrency(strings.ToUpper(cur)) {
		return nil, invalidParam("currency", "", "Invalid currency: "+cur)
	}
	if err := checkIntentAmount(amount, cur); err != nil {
		return nil, err
	}
	pi := &PaymentIntent{ID: newID("pi_", 24), Status: IntentRequiresPaymentMethod, Amount: amount, Currency: cur, CaptureMethod: "automatic_async"}
	for i, e := range f.elems("payment_method_types") {
		switch e.val {
		case "card", "card_present":
			if !slices.Contains(pi.PaymentMethodTypes, e.val) {
				pi.PaymentMethodTypes = append(pi.PaymentMethodTypes, e.val)
			}
		default:
			return nil, invalidParam(fmt.Sprintf("payment_method_types[%d]", i), "",
				fmt.Sprintf("The payment method type %q is invalid. The sandbox provider supports only card and card_present.", e.val))
		}
	}
	if v, ok := f.str("capture_method"); ok {
		switch v {
		case "automatic", "automatic_async", "manual":
			pi.CaptureMethod = v
		default:
			return nil, invalidParam("capture_method", "", "Invalid capture_method: must be one of automatic, automatic_async, or manual")
		}
	}
	if v, ok := f.str("description"); ok {
		if err := checkLength(v, "description", 1000); err != nil {
			return nil, err
		}
		pi.Description = v
	}
	if v, ok := f.str("statement_descriptor_suffix"); ok && v != "" {
		if err := checkDescriptorSuffix(v); err != nil {
			return nil, err
		}
		pi.StatementDescriptorSuffix = v
	}
	md, err := checkMetadata(f.strMap("metadata"), "metadata")
	if err != nil {
		return nil, err
	}
	pi.Metadata = md
	return pi, nil
}

// checkIntentAmount applies Stripe's minimum charge (as a Checkout Session's
// total) and maximum to an intent's amount.
func checkIntentAmount(amount int64, cur string) *apiError {
	if min := max(minimumCharge[cur], 1); amount < min {
		return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "amount_too_small", Param: "amount",
			Message: fmt.Sprintf("Amount must be at least %s %s", formatAmount(min, strings.ToUpper(cur)), cur)}
	}
	if amount > 99999999 {
		return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "amount_too_large", Param: "amount",
			Message: fmt.Sprintf("Amount must be no more than %s %s", formatAmount(99999999, strings.ToUpper(cur)), cur)}
	}
	return nil
}

// checkDescriptorSuffix applies Stripe's rules for a statement descriptor
// suffix: at most 22 characters, a letter, none of < > \ ' " *.
func checkDescriptorSuffix(v string) *apiError {
	if err := checkLength(v, "statement_descriptor_suffix", 22); err != nil {
		return err
	}
	if strings.ContainsAny(v, `<>\'"*`) || !strings.ContainsFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' }) {
		return invalidParam("statement_descriptor_suffix", "", `Invalid statement_descriptor_suffix: it must contain at least one letter and none of < > \ ' " *`)
	}
	return nil
}

// cancelIntentLocked cancels an intent: an authorization (requires_capture)
// is released, a reader taking the intent is reset (its action cleared, as
// by cancel_action), a connector payment on the intent becomes cancelled, and
// payment_intent.canceled is sent.
func (p *Provider) cancelIntentLocked(pi *PaymentIntent, reason string, req *apiCall, eff *effects) *apiError {
	if !slices.Contains(cancelableIntent, pi.Status) {
		return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "payment_intent_unexpected_state", executed: true,
			Message: fmt.Sprintf("You cannot cancel this PaymentIntent because it has a status of %s. Only a PaymentIntent with one of the following statuses may be canceled: %s.",
				pi.Status, strings.Join(cancelableIntent, ", "))}
	}
	now := p.now()
	if ch := p.charges[pi.LatestChargeID]; ch != nil && pi.Status == IntentRequiresCapture {
		// Stripe marks a released authorization's charge refunded in full.
		ch.AmountRefunded, ch.Refunded = ch.Amount, true
	}
	pi.Status, pi.CanceledAt, pi.CancellationReason = IntentCanceled, now, reason
	for _, r := range p.readers {
		if a := r.Action; a != nil && a.Status == ActionInProgress && a.PaymentIntentID == pi.ID {
			r.Action = nil
		}
	}
	if pay := p.payments[pi.ID]; pay != nil && pay.Status == StatusPending {
		pay.Status, pay.UpdatedAt = StatusCancelled, now
		eff.notify = append(eff.notify, *pay)
	}
	p.queueEventLocked(EventPaymentIntentCanceled, pi.ID, p.intentJSONLocked(pi, nil), nil, req)
	return nil
}
