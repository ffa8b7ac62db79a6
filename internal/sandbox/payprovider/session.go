package payprovider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// What each endpoint accepts. Anything else is parameter_unknown.
var (
	expandOnly = hash(map[string]*param{"expand": list(scalar)})

	sessionCreateParams = hash(map[string]*param{
		"mode":                 scalar,
		"success_url":          scalar,
		"cancel_url":           scalar,
		"client_reference_id":  scalar,
		"customer_email":       scalar,
		"expires_at":           scalar,
		"locale":               scalar,
		"ui_mode":              scalar,
		"metadata":             strMap,
		"expand":               list(scalar),
		"payment_method_types": list(scalar),
		"line_items": list(hash(map[string]*param{
			"quantity": scalar,
			"price":    scalar,
			"price_data": hash(map[string]*param{
				"currency":     scalar,
				"unit_amount":  scalar,
				"tax_behavior": scalar,
				"product_data": hash(map[string]*param{
					"name":        scalar,
					"description": scalar,
					"metadata":    strMap,
				}),
			}),
		})),
		"payment_intent_data": hash(map[string]*param{
			"metadata":      strMap,
			"description":   scalar,
			"receipt_email": scalar,
		}),
	})

	refundCreateParams = hash(map[string]*param{
		"payment_intent": scalar,
		"charge":         scalar,
		"amount":         scalar,
		"reason":         scalar,
		"metadata":       strMap,
		"expand":         list(scalar),
	})
)

// What each object lets expand[] reach.
var (
	sessionExpandable = []string{"payment_intent", "payment_intent.latest_charge"}
	intentExpandable  = []string{"latest_charge"}
	refundExpandable  = []string{"charge", "payment_intent", "payment_intent.latest_charge"}
)

// expansion is the set of expand[] paths of a request, relative to the object
// being rendered.
type expansion map[string]bool

// parseExpand checks the expand[] values against what the object allows.
func parseExpand(f *fnode, allowed []string) (expansion, *apiError) {
	e := expansion{}
	for _, v := range f.expandList() {
		ok := false
		for _, a := range allowed {
			ok = ok || v == a
		}
		if !ok {
			return nil, &apiError{status: 400, Type: typeInvalidRequest, Message: "This property cannot be expanded (" + v + ")."}
		}
		e[v] = true
	}
	return e, nil
}

// has reports whether k is expanded (itself or a path below it).
func (e expansion) has(k string) bool {
	for p := range e {
		if p == k || strings.HasPrefix(p, k+".") {
			return true
		}
	}
	return false
}

// sub is the expansion of the object under k.
func (e expansion) sub(k string) expansion {
	out := expansion{}
	for p := range e {
		if rest, ok := strings.CutPrefix(p, k+"."); ok {
			out[rest] = true
		}
	}
	return out
}

func emptyParam(name string) *apiError {
	return invalidParam(name, "parameter_invalid_empty", fmt.Sprintf("You passed an empty string for '%s'. We assume empty values are an attempt to unset a parameter; however '%s' cannot be unset. You should remove '%s' from your request or supply a non-empty value.", name, name, name))
}

// requiredStr reads a required non-empty scalar.
func requiredStr(f *fnode, k, name string) (string, *apiError) {
	v, ok := f.str(k)
	if !ok {
		return "", missingParam(name)
	}
	if v == "" {
		return "", emptyParam(name)
	}
	return v, nil
}

// boundedInt reads a required integer within [lo, hi].
func boundedInt(f *fnode, k, name string, lo, hi int64) (int64, *apiError) {
	v, ok, err := f.integer(k, name)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, missingParam(name)
	}
	if v < lo {
		return 0, invalidParam(name, "", fmt.Sprintf("This value must be greater than or equal to %d.", lo))
	}
	if v > hi {
		return 0, invalidParam(name, "", fmt.Sprintf("This value must be less than or equal to %d.", hi))
	}
	return v, nil
}

// checkMetadata applies Stripe's metadata limits and drops empty values
// (an empty value unsets a key).
func checkMetadata(m map[string]string, name string) (map[string]string, *apiError) {
	out := map[string]string{}
	if len(m) > 50 {
		return nil, invalidParam(name, "", "Invalid "+name+": metadata can have at most 50 keys.")
	}
	for k, v := range m {
		if utf8.RuneCountInString(k) > 40 {
			return nil, invalidParam(name+"["+k+"]", "", "Metadata keys can have a maximum length of 40 characters.")
		}
		if utf8.RuneCountInString(v) > 500 {
			return nil, invalidParam(name+"["+k+"]", "", "Metadata values can have a maximum length of 500 characters.")
		}
		if v != "" {
			out[k] = v
		}
	}
	return out, nil
}

func checkURL(v, name string) *apiError {
	if !absoluteHTTP(v) {
		return invalidParam(name, "url_invalid", "Not a valid URL")
	}
	return nil
}

func checkEmail(v, name string) *apiError {
	a, err := mail.ParseAddress(v)
	if err != nil || a.Address != v || a.Name != "" {
		return invalidParam(name, "email_invalid", "Invalid email address: "+v)
	}
	return nil
}

func checkLength(v, name string, max int) *apiError {
	if utf8.RuneCountInString(v) > max {
		return invalidParam(name, "", fmt.Sprintf("Invalid string: %s...; must be at most %d characters", truncate(v, 20), max))
	}
	return nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// newSession validates the parameters of POST /v1/checkout/sessions and
// builds the session. The checks run in the order Stripe's answers were taken
// from: the first wrong parameter is the one named.
func (p *Provider) newSession(f *fnode, now time.Time) (*CheckoutSession, *apiError) {
	if err := f.check(sessionCreateParams, ""); err != nil {
		return nil, err
	}
	if err := checkSessionMode(f); err != nil {
		return nil, err
	}
	items := f.elems("line_items")
	if len(items) == 0 {
		return nil, missingParam("line_items")
	}
	if len(items) > 100 {
		return nil, invalidParam("line_items", "", "A Checkout Session can have at most 100 line items.")
	}
	s := &CheckoutSession{ID: newID("cs_test_", 58), Status: SessionOpen, PaymentStatus: SessionUnpaid, Created: now}
	if err := s.readLineItems(items); err != nil {
		return nil, err
	}
	if err := s.checkTotal(); err != nil {
		return nil, err
	}
	if err := s.readReturnURLs(f); err != nil {
		return nil, err
	}
	if err := s.readCustomer(f); err != nil {
		return nil, err
	}
	if err := s.readPaymentIntentData(f.child("payment_intent_data")); err != nil {
		return nil, err
	}
	if err := s.readExpiry(f, now); err != nil {
		return nil, err
	}
	return s, nil
}

// checkSessionMode refuses what the sandbox does not do: a mode other than payment, a
// ui_mode other than hosted, a payment method type other than card.
func checkSessionMode(f *fnode) *apiError {
	mode, err := requiredStr(f, "mode", "mode")
	if err != nil {
		return err
	}
	switch mode {
	case "payment":
	case "setup", "subscription":
		return invalidParam("mode", "", "The sandbox provider supports only mode=payment.")
	default:
		return invalidParam("mode", "", "Invalid mode: must be one of payment, setup, or subscription")
	}
	if v, ok := f.str("ui_mode"); ok && v != "hosted" {
		return invalidParam("ui_mode", "", "The sandbox provider supports only ui_mode=hosted.")
	}
	for i, e := range f.elems("payment_method_types") {
		if e.val != "card" {
			return invalidParam(fmt.Sprintf("payment_method_types[%d]", i), "", "The sandbox provider supports only the payment method type card.")
		}
	}
	return nil
}

// readLineItems adds the line items (price_data only, all in one currency) and their total.
func (s *CheckoutSession) readLineItems(items []*fnode) *apiError {
	for i, it := range items {
		base := fmt.Sprintf("line_items[%d]", i)
		if price, ok := it.str("price"); ok {
			return noSuchParam("price", price, base+"[price]")
		}
		qty, err := boundedInt(it, "quantity", base+"[quantity]", 1, 999999)
		if err != nil {
			return err
		}
		pd := it.child("price_data")
		if pd == nil {
			return missingParam(base + "[price_data]")
		}
		if err := s.readCurrency(pd, base); err != nil {
			return err
		}
		unit, err := boundedInt(pd, "unit_amount", base+"[price_data][unit_amount]", 0, 99999999)
		if err != nil {
			return err
		}
		name, desc, err := priceProduct(pd, base)
		if err != nil {
			return err
		}
		s.LineItems = append(s.LineItems, LineItem{Name: name, Description: desc, UnitAmount: unit, Quantity: qty})
		s.AmountTotal += unit * qty
	}
	return nil
}

// readCurrency takes the session's currency from the first line item; every other one must
// use the same.
func (s *CheckoutSession) readCurrency(pd *fnode, base string) *apiError {
	cur, err := requiredStr(pd, "currency", base+"[price_data][currency]")
	if err != nil {
		return err
	}
	cur = strings.ToLower(cur)
	if !validCurrency(strings.ToUpper(cur)) {
		return invalidParam(base+"[price_data][currency]", "", "Invalid currency: "+cur)
	}
	if s.Currency == "" {
		s.Currency = cur
	} else if cur != s.Currency {
		return invalidParam(base+"[price_data][currency]", "", "All line items must use the same currency.")
	}
	return nil
}

// priceProduct checks a line item's tax behaviour and reads the name and description of its
// product.
func priceProduct(pd *fnode, base string) (name, desc string, err *apiError) {
	if tb, ok := pd.str("tax_behavior"); ok && tb != "inclusive" && tb != "exclusive" && tb != "unspecified" {
		return "", "", invalidParam(base+"[price_data][tax_behavior]", "", "Invalid tax_behavior: must be one of exclusive, inclusive, or unspecified")
	}
	prod := pd.child("product_data")
	if prod == nil {
		return "", "", missingParam(base + "[price_data][product_data]")
	}
	name, err = requiredStr(prod, "name", base+"[price_data][product_data][name]")
	if err != nil {
		return "", "", err
	}
	desc, _ = prod.str("description")
	return name, desc, nil
}

// checkTotal refuses a total below the currency's minimum charge or above 999,999.99.
func (s *CheckoutSession) checkTotal() *apiError {
	if least := max(minimumCharge[s.Currency], 1); s.AmountTotal < least {
		return &apiError{status: 400, Type: typeInvalidRequest, Code: "amount_too_small", Param: "line_items",
			Message: fmt.Sprintf("The Checkout Session's total amount due must add up to at least %s %s",
				formatAmount(least, strings.ToUpper(s.Currency)), s.Currency)}
	}
	if s.AmountTotal > 99999999 {
		return &apiError{status: 400, Type: typeInvalidRequest, Code: "amount_too_large", Param: "line_items",
			Message: "The Checkout Session's total amount due must be no more than 999,999.99"}
	}
	return nil
}

// readReturnURLs reads where the customer goes back to: success_url (required) and
// cancel_url.
func (s *CheckoutSession) readReturnURLs(f *fnode) *apiError {
	var err *apiError
	if s.SuccessURL, err = requiredStr(f, "success_url", "success_url"); err != nil {
		return err
	}
	if err := checkURL(withSessionID(s.SuccessURL, "cs"), "success_url"); err != nil {
		return err
	}
	if v, ok := f.str("cancel_url"); ok {
		if v == "" {
			return emptyParam("cancel_url")
		}
		if err := checkURL(withSessionID(v, "cs"), "cancel_url"); err != nil {
			return err
		}
		s.CancelURL = v
	}
	return nil
}

// readCustomer reads the caller's reference, the customer's e-mail and locale, and the
// session's metadata.
func (s *CheckoutSession) readCustomer(f *fnode) *apiError {
	if v, ok := f.str("client_reference_id"); ok {
		if err := checkLength(v, "client_reference_id", 200); err != nil {
			return err
		}
		s.ClientReferenceID = v
	}
	if v, ok := f.str("customer_email"); ok && v != "" {
		if err := checkEmail(v, "customer_email"); err != nil {
			return err
		}
		s.CustomerEmail, s.receiptEmail = v, v
	}
	s.Locale, _ = f.str("locale")
	var err *apiError
	s.Metadata, err = checkMetadata(f.strMap("metadata"), "metadata")
	return err
}

// readPaymentIntentData reads what the session's payment intent gets: metadata, a
// description and the address its receipt goes to.
func (s *CheckoutSession) readPaymentIntentData(pid *fnode) *apiError {
	var err *apiError
	if s.piMetadata, err = checkMetadata(pid.strMap("metadata"), "payment_intent_data[metadata]"); err != nil {
		return err
	}
	if v, ok := pid.str("description"); ok {
		if err := checkLength(v, "payment_intent_data[description]", 1000); err != nil {
			return err
		}
		s.piDescription = v
	}
	if v, ok := pid.str("receipt_email"); ok && v != "" {
		if err := checkEmail(v, "payment_intent_data[receipt_email]"); err != nil {
			return err
		}
		s.receiptEmail = v
	}
	return nil
}

// readExpiry sets when the session expires: after sessionLifetime, or at expires_at when it
// is between 30 minutes and 24 hours away.
func (s *CheckoutSession) readExpiry(f *fnode, now time.Time) *apiError {
	s.ExpiresAt = now.Add(sessionLifetime)
	at, ok, err := f.integer("expires_at", "expires_at")
	if err != nil || !ok {
		return err
	}
	t := time.Unix(at, 0)
	if t.Before(now.Add(minSessionLifetime)) {
		return invalidParam("expires_at", "", "The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.")
	}
	if t.After(now.Add(sessionLifetime)) {
		return invalidParam("expires_at", "", "The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.")
	}
	s.ExpiresAt = t
	return nil
}

// refundParams validates the parameters of POST /v1/refunds.
func refundParams(f *fnode) (refundInput, *apiError) {
	if err := f.check(refundCreateParams, ""); err != nil {
		return refundInput{}, err
	}
	var in refundInput
	in.paymentIntent, _ = f.str("payment_intent")
	in.charge, _ = f.str("charge")
	if a, ok, err := f.integer("amount", "amount"); err != nil {
		return refundInput{}, err
	} else if ok {
		if a < 1 {
			return refundInput{}, invalidParam("amount", "", "This value must be greater than or equal to 1.")
		}
		in.amount = &a
	}
	if r, ok := f.str("reason"); ok && r != "" {
		switch r {
		case "duplicate", "fraudulent", "requested_by_customer":
			in.reason = r
		default:
			return refundInput{}, invalidParam("reason", "", "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer")
		}
	}
	md, err := checkMetadata(f.strMap("metadata"), "metadata")
	if err != nil {
		return refundInput{}, err
	}
	in.metadata = md
	return in, nil
}

// JSON shapes of Stripe's objects (the fields the sandbox fills; the rest
// of Stripe's fields are left out or null).

type automaticTaxJSON struct {
	Enabled   bool `json:"enabled"`
	Liability any  `json:"liability"`
	Status    any  `json:"status"`
}

type customTextJSON struct {
	AfterSubmit              any `json:"after_submit"`
	ShippingAddress          any `json:"shipping_address"`
	Submit                   any `json:"submit"`
	TermsOfServiceAcceptance any `json:"terms_of_service_acceptance"`
}

type customerDetailsJSON struct {
	Address   any     `json:"address"`
	Email     *string `json:"email"`
	Name      any     `json:"name"`
	Phone     any     `json:"phone"`
	TaxExempt string  `json:"tax_exempt"`
	TaxIDs    []any   `json:"tax_ids"`
}

type totalDetailsJSON struct {
	AmountDiscount int64 `json:"amount_discount"`
	AmountShipping int64 `json:"amount_shipping"`
	AmountTax      int64 `json:"amount_tax"`
}

type sessionJSON struct {
	ID                       string               `json:"id"`
	Object                   string               `json:"object"`
	AfterExpiration          any                  `json:"after_expiration"`
	AllowPromotionCodes      any                  `json:"allow_promotion_codes"`
	AmountSubtotal           int64                `json:"amount_subtotal"`
	AmountTotal              int64                `json:"amount_total"`
	AutomaticTax             automaticTaxJSON     `json:"automatic_tax"`
	BillingAddressCollection any                  `json:"billing_address_collection"`
	CancelURL                *string              `json:"cancel_url"`
	ClientReferenceID        *string              `json:"client_reference_id"`
	ClientSecret             any                  `json:"client_secret"`
	Created                  int64                `json:"created"`
	Currency                 string               `json:"currency"`
	CustomFields             []any                `json:"custom_fields"`
	CustomText               customTextJSON       `json:"custom_text"`
	Customer                 any                  `json:"customer"`
	CustomerCreation         string               `json:"customer_creation"`
	CustomerDetails          *customerDetailsJSON `json:"customer_details"`
	CustomerEmail            *string              `json:"customer_email"`
	ExpiresAt                int64                `json:"expires_at"`
	Invoice                  any                  `json:"invoice"`
	Livemode                 bool                 `json:"livemode"`
	Locale                   *string              `json:"locale"`
	Metadata                 map[string]string    `json:"metadata"`
	Mode                     string               `json:"mode"`
	PaymentIntent            any                  `json:"payment_intent"`
	PaymentLink              any                  `json:"payment_link"`
	PaymentMethodTypes       []string             `json:"payment_method_types"`
	PaymentStatus            string               `json:"payment_status"`
	SetupIntent              any                  `json:"setup_intent"`
	ShippingOptions          []any                `json:"shipping_options"`
	Status                   string               `json:"status"`
	SubmitType               any                  `json:"submit_type"`
	Subscription             any                  `json:"subscription"`
	SuccessURL               *string              `json:"success_url"`
	TotalDetails             totalDetailsJSON     `json:"total_details"`
	UIMode                   string               `json:"ui_mode"`
	URL                      *string              `json:"url"`
}

type lastPaymentErrorJSON struct {
	Code        string `json:"code"`
	DeclineCode string `json:"decline_code"`
	Message     string `json:"message"`
	Type        string `json:"type"`
}

type intentJSON struct {
	ID                 string                `json:"id"`
	Object             string                `json:"object"`
	Amount             int64                 `json:"amount"`
	AmountCapturable   int64                 `json:"amount_capturable"`
	AmountReceived     int64                 `json:"amount_received"`
	CanceledAt         *int64                `json:"canceled_at"`
	CancellationReason *string               `json:"cancellation_reason"`
	CaptureMethod      string                `json:"capture_method"`
	ClientSecret       string                `json:"client_secret"`
	ConfirmationMethod string                `json:"confirmation_method"`
	Created            int64                 `json:"created"`
	Currency           string                `json:"currency"`
	Customer           any                   `json:"customer"`
	Description        *string               `json:"description"`
	LastPaymentError   *lastPaymentErrorJSON `json:"last_payment_error"`
	LatestCharge       any                   `json:"latest_charge"`
	Livemode           bool                  `json:"livemode"`
	Metadata           map[string]string     `json:"metadata"`
	PaymentMethod      *string               `json:"payment_method"`
	PaymentMethodTypes []string              `json:"payment_method_types"`
	ReceiptEmail       *string               `json:"receipt_email"`
	// StatementDescriptorSuffix: null unless sent on create.
	StatementDescriptorSuffix *string `json:"statement_descriptor_suffix"`
	Status                    string  `json:"status"`
}

type cardJSON struct {
	Brand    string `json:"brand"`
	Country  string `json:"country"`
	ExpMonth int    `json:"exp_month"`
	ExpYear  int    `json:"exp_year"`
	Funding  string `json:"funding"`
	Last4    string `json:"last4"`
	Network  string `json:"network"`
}

// cardPresentJSON is payment_method_details.card_present of a charge made
// on a Terminal reader.
type cardPresentJSON struct {
	AmountAuthorized                  int64              `json:"amount_authorized"`
	Brand                             string             `json:"brand"`
	BrandProduct                      any                `json:"brand_product"`
	CardholderName                    any                `json:"cardholder_name"`
	Country                           string             `json:"country"`
	EmvAuthData                       string             `json:"emv_auth_data"`
	ExpMonth                          int                `json:"exp_month"`
	ExpYear                           int                `json:"exp_year"`
	Fingerprint                       string             `json:"fingerprint"`
	Funding                           string             `json:"funding"`
	GeneratedCard                     any                `json:"generated_card"`
	IncrementalAuthorizationSupported bool               `json:"incremental_authorization_supported"`
	Last4                             string             `json:"last4"`
	Network                           string             `json:"network"`
	NetworkTransactionID              string             `json:"network_transaction_id"`
	Offline                           any                `json:"offline"`
	OvercaptureSupported              bool               `json:"overcapture_supported"`
	PreferredLocales                  []string           `json:"preferred_locales"`
	ReadMethod                        string             `json:"read_method"`
	Reader                            string             `json:"reader,omitempty"`
	Receipt                           cardPresentReceipt `json:"receipt"`
}

type cardPresentReceipt struct {
	AccountType                  string `json:"account_type"`
	ApplicationCryptogram        string `json:"application_cryptogram"`
	ApplicationPreferredName     string `json:"application_preferred_name"`
	AuthorizationCode            any    `json:"authorization_code"`
	AuthorizationResponseCode    string `json:"authorization_response_code"`
	CardholderVerificationMethod string `json:"cardholder_verification_method"`
	DedicatedFileName            string `json:"dedicated_file_name"`
	TerminalVerificationResults  string `json:"terminal_verification_results"`
	TransactionStatusInformation string `json:"transaction_status_information"`
}

// paymentMethodDetailsJSON has card or card_present, after type, as
// Stripe's charges do.
type paymentMethodDetailsJSON struct {
	Card        *cardJSON        `json:"card,omitempty"`
	CardPresent *cardPresentJSON `json:"card_present,omitempty"`
	Type        string           `json:"type"`
}

type outcomeJSON struct {
	NetworkStatus string `json:"network_status"`
	Reason        any    `json:"reason"`
	RiskLevel     string `json:"risk_level"`
	SellerMessage string `json:"seller_message"`
	Type          string `json:"type"`
}

type addressJSON struct {
	City       any `json:"city"`
	Country    any `json:"country"`
	Line1      any `json:"line1"`
	Line2      any `json:"line2"`
	PostalCode any `json:"postal_code"`
	State      any `json:"state"`
}

type billingDetailsJSON struct {
	Address addressJSON `json:"address"`
	Email   *string     `json:"email"`
	Name    any         `json:"name"`
	Phone   any         `json:"phone"`
}

type chargeJSON struct {
	ID                   string                   `json:"id"`
	Object               string                   `json:"object"`
	Amount               int64                    `json:"amount"`
	AmountCaptured       int64                    `json:"amount_captured"`
	AmountRefunded       int64                    `json:"amount_refunded"`
	BalanceTransaction   any                      `json:"balance_transaction"`
	BillingDetails       billingDetailsJSON       `json:"billing_details"`
	Captured             bool                     `json:"captured"`
	Created              int64                    `json:"created"`
	Currency             string                   `json:"currency"`
	Customer             any                      `json:"customer"`
	Description          *string                  `json:"description"`
	Disputed             bool                     `json:"disputed"`
	FailureCode          any                      `json:"failure_code"`
	FailureMessage       any                      `json:"failure_message"`
	Livemode             bool                     `json:"livemode"`
	Metadata             map[string]string        `json:"metadata"`
	Outcome              outcomeJSON              `json:"outcome"`
	Paid                 bool                     `json:"paid"`
	PaymentIntent        string                   `json:"payment_intent"`
	PaymentMethod        string                   `json:"payment_method"`
	PaymentMethodDetails paymentMethodDetailsJSON `json:"payment_method_details"`
	ReceiptEmail         *string                  `json:"receipt_email"`
	Refunded             bool                     `json:"refunded"`
	Status               string                   `json:"status"`
}

type refundJSON struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	Amount             int64             `json:"amount"`
	BalanceTransaction any               `json:"balance_transaction"`
	Charge             any               `json:"charge"`
	Created            int64             `json:"created"`
	Currency           string            `json:"currency"`
	Metadata           map[string]string `json:"metadata"`
	PaymentIntent      any               `json:"payment_intent"`
	Reason             *string           `json:"reason"`
	ReceiptNumber      any               `json:"receipt_number"`
	Status             string            `json:"status"`
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (p *Provider) sessionJSONLocked(s *CheckoutSession, exp expansion) sessionJSON {
	j := sessionJSON{
		ID: s.ID, Object: "checkout.session", AmountSubtotal: s.AmountTotal, AmountTotal: s.AmountTotal,
		CancelURL: optStr(s.CancelURL), ClientReferenceID: optStr(s.ClientReferenceID), Created: s.Created.Unix(),
		Currency: s.Currency, CustomFields: []any{}, CustomerCreation: "if_required", CustomerEmail: optStr(s.CustomerEmail),
		ExpiresAt: s.ExpiresAt.Unix(), Locale: optStr(s.Locale), Metadata: cloneMap(s.Metadata), Mode: "payment",
		PaymentMethodTypes: []string{"card"}, PaymentStatus: s.PaymentStatus, ShippingOptions: []any{}, Status: s.Status,
		SuccessURL: optStr(s.SuccessURL), UIMode: "hosted",
	}
	if s.Status == SessionOpen {
		u := p.HostedURL(s.ID)
		j.URL = &u
	}
	if s.Status == SessionComplete {
		j.CustomerDetails = &customerDetailsJSON{Email: optStr(s.receiptEmail), TaxExempt: "none", TaxIDs: []any{}}
	}
	if s.PaymentIntentID != "" {
		j.PaymentIntent = s.PaymentIntentID
		if pi := p.intents[s.PaymentIntentID]; pi != nil && exp.has("payment_intent") {
			j.PaymentIntent = p.intentJSONLocked(pi, exp.sub("payment_intent"))
		}
	}
	return j
}

func (p *Provider) intentJSONLocked(pi *PaymentIntent, exp expansion) intentJSON {
	j := intentJSON{
		ID: pi.ID, Object: "payment_intent", Amount: pi.Amount, AmountReceived: pi.AmountReceived,
		CaptureMethod: pi.captureMethod(), ClientSecret: clientSecret(pi.ID), ConfirmationMethod: "automatic",
		Created: pi.Created.Unix(), Currency: pi.Currency, Description: optStr(pi.Description), Metadata: cloneMap(pi.Metadata),
		PaymentMethod: optStr(pi.PaymentMethodID), PaymentMethodTypes: pi.methodTypes(), ReceiptEmail: optStr(pi.ReceiptEmail), Status: pi.Status,
		StatementDescriptorSuffix: optStr(pi.StatementDescriptorSuffix),
	}
	if pi.Status == IntentRequiresCapture {
		j.AmountCapturable = pi.Amount
	}
	if !pi.CanceledAt.IsZero() {
		at := pi.CanceledAt.Unix()
		j.CanceledAt, j.CancellationReason = &at, optStr(pi.CancellationReason)
	}
	if e := pi.lastPaymentError; e != nil {
		j.LastPaymentError = &lastPaymentErrorJSON{Code: e.code, DeclineCode: e.declineCode, Message: e.message, Type: "card_error"}
	}
	if pi.LatestChargeID != "" {
		j.LatestCharge = pi.LatestChargeID
		if ch := p.charges[pi.LatestChargeID]; ch != nil && exp.has("latest_charge") {
			j.LatestCharge = p.chargeJSONLocked(ch)
		}
	}
	return j
}

func (p *Provider) chargeJSONLocked(ch *Charge) chargeJSON {
	j := chargeJSON{
		ID:             ch.ID,
		Object:         "charge",
		Amount:         ch.Amount,
		AmountRefunded: ch.AmountRefunded,
		BillingDetails: billingDetailsJSON{Email: optStr(ch.ReceiptEmail)},
		Captured:       ch.Captured,
		Created:        ch.Created.Unix(),
		Currency:       ch.Currency,
		Description:    optStr(ch.Description),
		Metadata:       cloneMap(ch.Metadata),
		Outcome:        outcomeJSON{NetworkStatus: "approved_by_network", RiskLevel: "normal", SellerMessage: "Payment complete.", Type: "authorized"},
		Paid:           true,
		PaymentIntent:  ch.PaymentIntentID,
		PaymentMethod:  ch.PaymentMethodID,
		ReceiptEmail:   optStr(ch.ReceiptEmail),
		Refunded:       ch.Refunded,
		Status:         "succeeded",
	}
	if ch.Captured {
		j.AmountCaptured = ch.Amount
	}
	if ch.PaymentMethodType == "card_present" {
		j.PaymentMethodDetails = paymentMethodDetailsJSON{Type: "card_present", CardPresent: cardPresentDetails(ch)}
	} else {
		j.PaymentMethodDetails = paymentMethodDetailsJSON{Type: "card", Card: &cardJSON{
			Brand: ch.Brand, Country: "US", ExpMonth: ch.ExpMonth, ExpYear: ch.ExpYear, Funding: ch.Funding, Last4: ch.Last4, Network: ch.Brand}}
	}
	return j
}

// cardPresentDetails is what a simulated reader read from a tapped card:
// Stripe's shape, with fixed EMV values of an approved contactless read.
func cardPresentDetails(ch *Charge) *cardPresentJSON {
	sum := sha256.Sum256([]byte("fingerprint\x00" + ch.Brand + ch.Last4))
	return &cardPresentJSON{
		AmountAuthorized: ch.Amount, Brand: ch.Brand, Country: "US", ExpMonth: ch.ExpMonth, ExpYear: ch.ExpYear,
		Fingerprint: hex.EncodeToString(sum[:])[:16], Funding: ch.Funding, Last4: ch.Last4, Network: ch.Brand,
		NetworkTransactionID: strings.ToUpper(hex.EncodeToString(sum[8:15])), PreferredLocales: []string{"en"},
		ReadMethod: "contactless_emv", Reader: ch.ReaderID,
		Receipt: cardPresentReceipt{
			AccountType: ch.Funding, ApplicationCryptogram: "3F1A0E5C0B2D7A91", ApplicationPreferredName: strings.ToUpper(ch.Brand) + " CREDIT",
			AuthorizationResponseCode: "3030", CardholderVerificationMethod: "none", DedicatedFileName: emvAID(ch.Brand),
			TerminalVerificationResults: "0000000000", TransactionStatusInformation: "0000",
		},
	}
}

func (p *Provider) refundJSONLocked(rf *Refund, exp expansion) refundJSON {
	j := refundJSON{
		ID: rf.ID, Object: "refund", Amount: rf.Amount, Charge: rf.ChargeID, Created: rf.Created.Unix(),
		Currency: rf.Currency, Metadata: cloneMap(rf.Metadata), PaymentIntent: rf.PaymentIntentID,
		Reason: optStr(rf.Reason), Status: rf.Status,
	}
	if ch := p.charges[rf.ChargeID]; ch != nil && exp.has("charge") {
		j.Charge = p.chargeJSONLocked(ch)
	}
	if pi := p.intents[rf.PaymentIntentID]; pi != nil && exp.has("payment_intent") {
		j.PaymentIntent = p.intentJSONLocked(pi, exp.sub("payment_intent"))
	}
	return j
}

// emvAID is the EMV application identifier of a card brand (the receipt's
// dedicated_file_name).
func emvAID(brand string) string {
	switch brand {
	case "mastercard":
		return "A0000000041010"
	case "amex":
		return "A00000002501"
	}
	return "A0000000031010" // Visa
}

// clientSecret is a stable client_secret for a payment intent.
func clientSecret(id string) string {
	sum := sha256.Sum256([]byte("client_secret\x00" + id))
	return id + "_secret_" + hex.EncodeToString(sum[:])[:25]
}
