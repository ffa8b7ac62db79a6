package payprovider

import (
	"cmp"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"
)

// maxBody limits request bodies of the API and of the hosted page's form.
const maxBody = 64 << 10

// idempotencyWindow is how long Stripe keeps an Idempotency-Key.
const idempotencyWindow = 24 * time.Hour

// Stripe's error types.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAPI            = "api_error"
	typeIdempotency    = "idempotency_error"
	typeCard           = "card_error"
)

// apiError is a Stripe error answer.
type apiError struct {
	status                                  int
	Type, Code, Param, Message, DeclineCode string
	// executed: the call ran and failed on the state of things (not on its
	// parameters), so an idempotent repeat replays this answer, as Stripe does.
	executed bool
}

// noSuch is Stripe's resource_missing for the object in the URL (404).
func noSuch(object, id, param string) *apiError {
	return &apiError{status: http.StatusNotFound, Type: typeInvalidRequest, Code: "resource_missing", Param: param,
		Message: fmt.Sprintf("No such %s: '%s'", object, id)}
}

// noSuchParam is resource_missing for an object named by a parameter (400).
func noSuchParam(object, id, param string) *apiError {
	e := noSuch(object, id, param)
	e.status = http.StatusBadRequest
	return e
}

type errorJSON struct {
	Code        string `json:"code,omitempty"`
	DeclineCode string `json:"decline_code,omitempty"`
	DocURL      string `json:"doc_url,omitempty"`
	Message     string `json:"message"`
	Param       string `json:"param,omitempty"`
	Type        string `json:"type"`
}

func (e *apiError) body() []byte {
	j := errorJSON{Code: e.Code, DeclineCode: e.DeclineCode, Message: e.Message, Param: e.Param, Type: e.Type}
	if e.Code != "" {
		j.DocURL = "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(e.Code, "_", "-")
	}
	return marshal(struct {
		Error errorJSON `json:"error"`
	}{j})
}

func marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // only our own types are marshalled
	}
	return append(b, '\n')
}

// apiCall is one API request as the endpoint functions see it.
type apiCall struct {
	form    *fnode
	id      string // {id} of the path
	reqID   string
	idemKey string
}

// idemEntry is the remembered answer of an Idempotency-Key.
type idemEntry struct {
	fingerprint string
	status      int
	body        []byte
	reqID       string
	at          time.Time
}

type execFunc func(c *apiCall, eff *effects) (any, *apiError)

// Handler serves Stripe's API subset and the hosted pages, with routes
// relative to its mount point (mount it with http.StripPrefix, e.g. under
// /pay, and give stripe-go that URL):
//
//	POST /v1/checkout/sessions
//	GET  /v1/checkout/sessions/{id}
//	POST /v1/checkout/sessions/{id}/expire
//	POST /v1/payment_intents
//	GET  /v1/payment_intents/{id}
//	POST /v1/payment_intents/{id}/cancel
//	GET  /v1/charges/{id}
//	POST /v1/refunds
//	GET  /v1/refunds/{id}
//	POST /v1/terminal/locations, GET /v1/terminal/locations, GET /v1/terminal/locations/{id}
//	POST /v1/terminal/readers, GET /v1/terminal/readers
//	GET, POST, DELETE /v1/terminal/readers/{id}
//	POST /v1/terminal/readers/{id}/process_payment_intent
//	POST /v1/terminal/readers/{id}/cancel_action
//	POST /v1/test_helpers/terminal/readers/{id}/present_payment_method
//	GET  /checkout/{id}, POST /checkout/{id}   (hosted pages: cs_… sessions, pi_… connector payments)
//	GET  /terminal, POST /terminal/{id}/present (the simulated readers' page)
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/checkout/sessions", p.endpoint(OpCheckoutSessionsCreate, p.createSession))
	mux.Handle("GET /v1/checkout/sessions/{id}", p.endpoint(OpCheckoutSessionsRetrieve, p.retrieveSession))
	mux.Handle("POST /v1/checkout/sessions/{id}/expire", p.endpoint(OpCheckoutSessionsExpire, p.expireSession))
	mux.Handle("POST /v1/payment_intents", p.endpoint(OpPaymentIntentsCreate, p.createIntent))
	mux.Handle("GET /v1/payment_intents/{id}", p.endpoint(OpPaymentIntentsRetrieve, p.retrieveIntent))
	mux.Handle("POST /v1/payment_intents/{id}/cancel", p.endpoint(OpPaymentIntentsCancel, p.cancelIntent))
	mux.Handle("GET /v1/charges/{id}", p.endpoint(OpChargesRetrieve, p.retrieveCharge))
	mux.Handle("POST /v1/refunds", p.endpoint(OpRefundsCreate, p.createRefund))
	mux.Handle("GET /v1/refunds/{id}", p.endpoint(OpRefundsRetrieve, p.retrieveRefund))
	mux.Handle("GET /v1/refunds", p.endpoint(OpRefundsList, p.listRefunds))
	mux.Handle("POST /v1/terminal/locations", p.endpoint(OpTerminalLocationsCreate, p.createLocation))
	mux.Handle("GET /v1/terminal/locations", p.endpoint(OpTerminalLocationsList, p.listLocations))
	mux.Handle("GET /v1/terminal/locations/{id}", p.endpoint(OpTerminalLocationsRetrieve, p.retrieveLocation))
	mux.Handle("POST /v1/terminal/readers", p.endpoint(OpTerminalReadersCreate, p.createReader))
	mux.Handle("GET /v1/terminal/readers", p.endpoint(OpTerminalReadersList, p.listReaders))
	mux.Handle("GET /v1/terminal/readers/{id}", p.endpoint(OpTerminalReadersRetrieve, p.retrieveReader))
	mux.Handle("POST /v1/terminal/readers/{id}", p.endpoint(OpTerminalReadersUpdate, p.updateReader))
	mux.Handle("DELETE /v1/terminal/readers/{id}", p.endpoint(OpTerminalReadersDelete, p.deleteReader))
	mux.Handle("POST /v1/terminal/readers/{id}/process_payment_intent", p.endpoint(OpTerminalReadersProcessPaymentIntent, p.processPaymentIntent))
	mux.Handle("POST /v1/terminal/readers/{id}/cancel_action", p.endpoint(OpTerminalReadersCancelAction, p.cancelReaderAction))
	mux.Handle("POST /v1/test_helpers/terminal/readers/{id}/present_payment_method",
		p.endpoint(OpTestHelpersTerminalReadersPresentPaymentMethod, p.presentPaymentMethod))
	mux.Handle("/v1/", p.endpoint("", nil))
	mux.HandleFunc("/checkout/{id}", p.handleCheckout)
	mux.HandleFunc("GET /terminal", p.handleTerminal)
	mux.HandleFunc("POST /terminal/{id}/present", p.handleTerminalPresent)
	return mux
}

// endpoint wraps an API call: Request-Id, auth, injected faults, form
// parsing, Idempotency-Key, and the answer. exec runs under p.mu, so a call is
// atomic; a nil exec is an unknown URL.
func (p *Provider) endpoint(op string, exec execFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqID := newID("req_", 14)
		h := w.Header()
		h.Set("Request-Id", reqID)
		h.Set("Cache-Control", "no-cache, no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Stripe-Version", stripeVersion(r))
		c, e := p.admit(op, exec, w, r, reqID)
		if e != nil {
			writeAPI(w, e.status, e.body())
			return
		}
		p.call(w, r, c, exec)
	})
}

// admit turns a request into a call, or answers why it is not one: not authorized, an
// unknown URL, an injected fault, a form that cannot be read, an Idempotency-Key too long.
func (p *Provider) admit(op string, exec execFunc, w http.ResponseWriter, r *http.Request, reqID string) (*apiCall, *apiError) {
	if e := p.authorize(r); e != nil {
		if e.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="Stripe"`)
		}
		return nil, e
	}
	if exec == nil {
		return nil, &apiError{status: http.StatusNotFound, Type: typeInvalidRequest, Message: fmt.Sprintf(
			"Unrecognized request URL (%s: %s). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.", r.Method, r.URL.Path)}
	}
	if status, ok := p.takeFailure(op); ok {
		return nil, injectedError(op, status)
	}
	if e := readForm(w, r); e != nil {
		return nil, e
	}
	c := &apiCall{form: parseParams(r.Form), id: r.PathValue("id"), reqID: reqID}
	if r.Method == http.MethodPost {
		c.idemKey = strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	}
	if len(c.idemKey) > 255 {
		return nil, invalidParam("", "", "Idempotency-Key must be at most 255 characters long.")
	}
	if c.idemKey != "" {
		w.Header().Set("Idempotency-Key", c.idemKey)
	}
	return c, nil
}

// call runs exec under p.mu and answers; a repeat of an Idempotency-Key within its window
// gets the first answer instead (the same parameters only), and a call that ran (or was
// refused after it took effect) is remembered under its key.
func (p *Provider) call(w http.ResponseWriter, r *http.Request, c *apiCall, exec execFunc) {
	fingerprint := r.Form.Encode() // sorted by key: the parameters, not their order
	ikey := p.apiKey + "\x00" + r.Method + " " + r.URL.Path + "\x00" + c.idemKey

	var eff effects
	p.mu.Lock()
	p.sweepLocked()
	now := p.now()
	if c.idemKey != "" {
		if prev := p.idem[ikey]; prev != nil && now.Sub(prev.at) < idempotencyWindow {
			p.mu.Unlock()
			replay(w, c, prev, fingerprint)
			return
		}
	}
	res, aerr := exec(c, &eff)
	status, body := http.StatusOK, []byte(nil)
	if aerr != nil {
		status, body = aerr.status, aerr.body()
	} else {
		body = marshal(res)
	}
	if c.idemKey != "" && (aerr == nil || aerr.executed) {
		p.rememberLocked(ikey, &idemEntry{fingerprint: fingerprint, status: status, body: body, reqID: c.reqID, at: now}, now)
	}
	p.mu.Unlock()
	p.apply(eff)
	writeAPI(w, status, body)
}

// replay answers a repeated Idempotency-Key with the first answer, or refuses it when the
// parameters differ.
func replay(w http.ResponseWriter, c *apiCall, prev *idemEntry, fingerprint string) {
	if prev.fingerprint != fingerprint {
		e := &apiError{status: http.StatusBadRequest, Type: typeIdempotency, Message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + c.idemKey + "' if you meant to execute a different request."}
		writeAPI(w, e.status, e.body())
		return
	}
	h := w.Header()
	h.Set("Idempotent-Replayed", "true")
	h.Set("Original-Request", prev.reqID)
	writeAPI(w, prev.status, prev.body)
}

// rememberLocked keeps the answer of an Idempotency-Key; every 1024 keys, those out of their
// window go.
func (p *Provider) rememberLocked(ikey string, entry *idemEntry, now time.Time) {
	p.idem[ikey] = entry
	if len(p.idem)%1024 == 0 {
		for k, e := range p.idem {
			if now.Sub(e.at) >= idempotencyWindow {
				delete(p.idem, k)
			}
		}
	}
}

func stripeVersion(r *http.Request) string {
	if v := r.Header.Get("Stripe-Version"); v != "" && len(v) < 64 {
		return v
	}
	return apiVersion
}

// readForm parses a form-encoded body (POST) or the query string (GET).
func readForm(w http.ResponseWriter, r *http.Request) *apiError {
	if r.Method == http.MethodPost {
		if ct := r.Header.Get("Content-Type"); ct != "" {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || mt != "application/x-www-form-urlencoded" {
				return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest,
					Message: "Invalid request: unsupported Content-Type " + ct + ". If error persists and you need assistance, please contact support@stripe.com."}
			}
		} else {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiError{status: http.StatusRequestEntityTooLarge, Type: typeInvalidRequest, Message: "Request body too large."}
		}
		return &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, Message: "Invalid request: the parameters could not be parsed."}
	}
	return nil
}

// authorize checks the secret key: Bearer (stripe-go) or Basic with the key
// as user name (curl -u sk_test_…:).
func (p *Provider) authorize(r *http.Request) *apiError {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	cred = strings.TrimSpace(cred)
	var key string
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		key = cred
	case strings.EqualFold(scheme, "Basic"):
		if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
			key, _, _ = strings.Cut(string(raw), ":")
		}
	}
	if key == "" {
		return &apiError{status: http.StatusUnauthorized, Type: typeInvalidRequest,
			Message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/."}
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(p.apiKey)) != 1 {
		return &apiError{status: http.StatusUnauthorized, Type: typeInvalidRequest, Message: "Invalid API Key provided: " + maskKey(key)}
	}
	return nil
}

// maskKey shows a key's prefix (sk_test_) and, for a long key, its last 4
// characters; never the whole key.
func maskKey(k string) string {
	prefix := ""
	if i := strings.LastIndexByte(k[:min(len(k), 8)], '_'); i >= 0 && i < len(k)-1 {
		prefix, k = k[:i+1], k[i+1:]
	}
	if len(k) >= 12 {
		return prefix + strings.Repeat("*", len(k)-4) + k[len(k)-4:]
	}
	return prefix + strings.Repeat("*", max(len(k), 4))
}

// injectedError is the answer of a failure injected with SetFailNext.
func injectedError(op string, status int) *apiError {
	msg := "Sandbox: failure injected by SetFailNext(" + op + ")."
	e := &apiError{status: status, Type: typeInvalidRequest, Message: msg}
	switch {
	case status >= 500:
		e.Type, e.Message = typeAPI, "An unknown error occurred. "+msg
	case status == http.StatusTooManyRequests:
		e.Code, e.Message = "rate_limit", "Too many requests hit the API too quickly. "+msg
	case status == http.StatusPaymentRequired:
		e.Type, e.Code, e.DeclineCode, e.Message = typeCard, "card_declined", "generic_decline", "Your card was declined. "+msg
	}
	return e
}

func writeAPI(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// The endpoints. They run under p.mu.

func (p *Provider) createSession(c *apiCall, _ *effects) (any, *apiError) {
	s, err := p.newSession(c.form, p.now())
	if err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, sessionExpandable)
	if err != nil {
		return nil, err
	}
	p.sessions[s.ID] = s
	p.open[s.ID] = s
	p.ensureTickerLocked()
	return p.sessionJSONLocked(s, exp), nil
}

func (p *Provider) retrieveSession(c *apiCall, _ *effects) (any, *apiError) {
	exp, err := expandParams(c.form, sessionExpandable)
	if err != nil {
		return nil, err
	}
	s := p.sessions[c.id]
	if s == nil {
		return nil, noSuch("checkout.session", c.id, "id")
	}
	return p.sessionJSONLocked(s, exp), nil
}

func (p *Provider) expireSession(c *apiCall, _ *effects) (any, *apiError) {
	exp, err := expandParams(c.form, sessionExpandable)
	if err != nil {
		return nil, err
	}
	s := p.sessions[c.id]
	if s == nil {
		return nil, noSuch("checkout.session", c.id, "id")
	}
	if s.Status != SessionOpen {
		return nil, &apiError{status: http.StatusBadRequest, Type: typeInvalidRequest, executed: true,
			Message: fmt.Sprintf("Only Checkout Sessions with a status in [\"open\"] can be expired. This Checkout Session has a status of %q.", s.Status)}
	}
	p.expireLocked(s, c)
	return p.sessionJSONLocked(s, exp), nil
}

func (p *Provider) retrieveIntent(c *apiCall, _ *effects) (any, *apiError) {
	exp, err := expandParams(c.form, intentExpandable)
	if err != nil {
		return nil, err
	}
	pi := p.intents[c.id]
	if pi == nil {
		return nil, noSuch("payment_intent", c.id, "id")
	}
	return p.intentJSONLocked(pi, exp), nil
}

// retrieveCharge is GET /v1/charges/{id}: the charge, its payment_intent by id (no
// expand[]: the sandbox lets nothing of a charge be expanded).
func (p *Provider) retrieveCharge(c *apiCall, _ *effects) (any, *apiError) {
	if _, err := expandParams(c.form, nil); err != nil {
		return nil, err
	}
	ch := p.charges[c.id]
	if ch == nil {
		return nil, noSuch("charge", c.id, "id")
	}
	return p.chargeJSONLocked(ch), nil
}

func (p *Provider) createRefund(c *apiCall, eff *effects) (any, *apiError) {
	in, err := refundParams(c.form)
	if err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, refundExpandable)
	if err != nil {
		return nil, err
	}
	rf, err := p.refundLocked(in, c, eff)
	if err != nil {
		return nil, err
	}
	return p.refundJSONLocked(rf, exp), nil
}

func (p *Provider) retrieveRefund(c *apiCall, _ *effects) (any, *apiError) {
	exp, err := expandParams(c.form, refundExpandable)
	if err != nil {
		return nil, err
	}
	rf := p.refunds[c.id]
	if rf == nil {
		return nil, noSuch("refund", c.id, "id")
	}
	return p.refundJSONLocked(rf, exp), nil
}

// refundListParams are GET /v1/refunds's filters besides the page.
var refundListParams = hash(withFields(pageParams, map[string]*param{
	"payment_intent": scalar,
	"charge":         scalar,
}))

// listRefunds is GET /v1/refunds: newest first, of one payment intent or charge when asked
// (how a test-mode integration checks where a refund went).
func (p *Provider) listRefunds(c *apiCall, _ *effects) (any, *apiError) {
	f := c.form
	if err := f.check(refundListParams, ""); err != nil {
		return nil, err
	}
	exp, err := parseExpand(f, prefixed("data.", refundExpandable))
	if err != nil {
		return nil, err
	}
	pi, byPI := f.str("payment_intent")
	ch, byCharge := f.str("charge")
	all := make([]*Refund, 0, len(p.refunds))
	for _, rf := range p.refunds {
		if byPI && rf.PaymentIntentID != pi || byCharge && rf.ChargeID != ch {
			continue
		}
		all = append(all, rf)
	}
	slices.SortFunc(all, func(a, b *Refund) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return cmp.Compare(b.seq, a.seq)
	})
	page, more, err := listPage(all, func(r *Refund) string { return r.ID }, f, "refund")
	if err != nil {
		return nil, err
	}
	data := make([]any, 0, len(page))
	for _, rf := range page {
		data = append(data, p.refundJSONLocked(rf, exp.sub("data")))
	}
	return listJSON{Object: "list", Data: data, HasMore: more, URL: "/v1/refunds"}, nil
}

// expandParams checks a request that takes only expand[].
func expandParams(f *fnode, allowed []string) (expansion, *apiError) {
	if err := f.check(expandOnly, ""); err != nil {
		return nil, err
	}
	return parseExpand(f, allowed)
}
