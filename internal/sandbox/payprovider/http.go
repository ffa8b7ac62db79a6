package payprovider

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// maxBody limits request bodies of the API and of the hosted page's form.
const maxBody = 64 << 10

// Handler serves the API and the hosted page, with routes relative to its
// mount point (mount it with http.StripPrefix):
//
//	POST /api/payments
//	GET  /api/payments/{id}
//	POST /api/payments/{id}/refunds
//	GET  /api/payments/{id}/refunds
//	GET  /checkout/{id}, POST /checkout/{id}
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/payments", p.api(map[string]http.HandlerFunc{
		http.MethodPost: p.handleCreate,
	}))
	mux.Handle("/api/payments/{id}", p.api(map[string]http.HandlerFunc{
		http.MethodGet: p.handleGet,
	}))
	mux.Handle("/api/payments/{id}/refunds", p.api(map[string]http.HandlerFunc{
		http.MethodPost: p.handleRefund,
		http.MethodGet:  p.handleListRefunds,
	}))
	mux.Handle("/api/", p.api(nil))
	mux.HandleFunc("/checkout/{id}", p.handleCheckout)
	return mux
}

// api wraps API handlers: bearer auth, then method dispatch. A nil map is an
// unknown path.
func (p *Provider) api(methods map[string]http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if !p.authorize(w, r) {
			return
		}
		if methods == nil {
			writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
			return
		}
		h, ok := methods[r.Method]
		if !ok {
			allow := make([]string, 0, len(methods))
			for m := range methods {
				allow = append(allow, m)
			}
			slices.Sort(allow)
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed")
			return
		}
		h(w, r)
	})
}

// authorize answers 401 without bearer credentials and 403 for a wrong key.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) bool {
	scheme, key, found := strings.Cut(r.Header.Get("Authorization"), " ")
	key = strings.TrimSpace(key)
	if !found || !strings.EqualFold(scheme, "Bearer") || key == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sandbox-pay"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "missing bearer API key")
		return false
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(p.apiKey)) != 1 {
		writeError(w, http.StatusForbidden, "forbidden", "wrong API key")
		return false
	}
	return true
}

// injected answers an injected failure of op, if one is pending.
func (p *Provider) injected(w http.ResponseWriter, op string) bool {
	status, ok := p.takeFailure(op)
	if ok {
		writeError(w, status, "injected_failure", "failure injected by SetFailNext("+op+")")
	}
	return ok
}

type createBody struct {
	AmountInCents  int64  `json:"amountInCents"`
	Currency       string `json:"currency"`
	ReturnURL      string `json:"returnUrl"`
	IdempotencyKey string `json:"idempotencyKey"`
	Reference      string `json:"reference"`
	Description    string `json:"description"`
}

type refundBody struct {
	AmountInCents  int64  `json:"amountInCents"`
	IdempotencyKey string `json:"idempotencyKey"`
}

type paymentJSON struct {
	ID               string `json:"id"`
	Token            string `json:"token"`
	Status           Status `json:"status"`
	AmountInCents    int64  `json:"amountInCents"`
	Currency         string `json:"currency"`
	HostedURL        string `json:"hostedUrl"`
	ReturnURL        string `json:"returnUrl"`
	Reference        string `json:"reference"`
	Description      string `json:"description"`
	IdempotencyKey   string `json:"idempotencyKey"`
	CardNumberMasked string `json:"cardNumberMasked"`
	CardType         string `json:"cardType"`
	RefundedInCents  int64  `json:"refundedInCents"`
	CreatedAt        string `json:"createdAt"`
	UpdatedAt        string `json:"updatedAt"`
}

type refundJSON struct {
	ID             string `json:"id"`
	PaymentID      string `json:"paymentId"`
	AmountInCents  int64  `json:"amountInCents"`
	Status         string `json:"status"`
	IdempotencyKey string `json:"idempotencyKey"`
	CreatedAt      string `json:"createdAt"`
}

func (p *Provider) paymentJSON(pay Payment) paymentJSON {
	return paymentJSON{
		ID:               pay.ID,
		Token:            pay.Token,
		Status:           pay.Status,
		AmountInCents:    pay.AmountInCents,
		Currency:         pay.Currency,
		HostedURL:        p.HostedURL(pay.ID),
		ReturnURL:        pay.ReturnURL,
		Reference:        pay.Reference,
		Description:      pay.Description,
		IdempotencyKey:   pay.IdempotencyKey,
		CardNumberMasked: pay.CardNumberMasked,
		CardType:         pay.CardType,
		RefundedInCents:  pay.RefundedInCents,
		CreatedAt:        stamp(pay.CreatedAt),
		UpdatedAt:        stamp(pay.UpdatedAt),
	}
}

func refundToJSON(rf Refund) refundJSON {
	return refundJSON{
		ID:             rf.ID,
		PaymentID:      rf.PaymentID,
		AmountInCents:  rf.AmountInCents,
		Status:         rf.Status,
		IdempotencyKey: rf.IdempotencyKey,
		CreatedAt:      stamp(rf.CreatedAt),
	}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (p *Provider) handleCreate(w http.ResponseWriter, r *http.Request) {
	if p.injected(w, "create") {
		return
	}
	var body createBody
	if !decodeBody(w, r, &body) {
		return
	}
	pay, created, err := p.create(CreateRequest(body))
	if err != nil {
		writeProviderError(w, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, p.paymentJSON(pay))
}

func (p *Provider) handleGet(w http.ResponseWriter, r *http.Request) {
	if p.injected(w, "get") {
		return
	}
	pay, ok := p.Get(r.PathValue("id"))
	if !ok {
		writeProviderError(w, ErrNotFound)
		return
	}
	writeJSON(w, http.StatusOK, p.paymentJSON(pay))
}

func (p *Provider) handleRefund(w http.ResponseWriter, r *http.Request) {
	if p.injected(w, "refund") {
		return
	}
	var body refundBody
	if !decodeBody(w, r, &body) {
		return
	}
	rf, created, err := p.refund(r.PathValue("id"), body.AmountInCents, body.IdempotencyKey)
	if err != nil {
		writeProviderError(w, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, refundToJSON(rf))
}

func (p *Provider) handleListRefunds(w http.ResponseWriter, r *http.Request) {
	list, ok := p.Refunds(r.PathValue("id"))
	if !ok {
		writeProviderError(w, ErrNotFound)
		return
	}
	out := struct {
		Refunds []refundJSON `json:"refunds"`
	}{Refunds: make([]refundJSON, 0, len(list))}
	for _, rf := range list {
		out.Refunds = append(out.Refunds, refundToJSON(rf))
	}
	writeJSON(w, http.StatusOK, out)
}

// decodeBody reads one JSON object with known fields only, at most maxBody
// bytes, and answers 400 / 413 itself on failure.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("unexpected data after the JSON object")
		}
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body is too large")
			return false
		}
		writeError(w, http.StatusBadRequest, "invalid_request", "malformed JSON body: "+err.Error())
		return false
	}
	return true
}

func writeProviderError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrInvalidRequest):
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
	case errors.Is(err, ErrIdempotencyConflict):
		writeError(w, http.StatusConflict, "idempotency_conflict", err.Error())
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, ErrNotPaid):
		writeError(w, http.StatusConflict, "payment_not_paid", err.Error())
	case errors.Is(err, ErrExceedsRefundable):
		writeError(w, http.StatusUnprocessableEntity, "amount_exceeds_refundable", err.Error())
	default:
		writeError(w, http.StatusInternalServerError, "internal_error", err.Error())
	}
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}{code, msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
