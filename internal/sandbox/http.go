package sandbox

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// family is the response style of an endpoint group (wire-profile "Transport").
type family int

const (
	famTicketing family = iota // PascalCase Result / ExtendedResultCode / ErrorDescription, HTTP 200
	famData                    // ResponseCode / ErrorDescription, HTTP 200
	famBooking                 // ResultCode / ErrorDescription, HTTP 200
	famEdit                    // camelCase, refusals as HTTP 4xx with a reason
)

// Result codes (wire-profile "Result codes").
const (
	resOK               = 0
	resUnexpected       = 1
	resInvalidRequest   = 4
	resInsufficientPts  = 7
	resSeatsUnavailable = 8
	resPaymentDeclined  = 12
	resMemberNotFound   = 17
	resDataNotFound     = 50 // ResponseCode of the data service for an unknown session or cinema
)

// Extended result codes (wire-profile "Extended result codes").
const (
	extOrderNotFound   = 40
	extOrderExpired    = 41
	extNotInEdit       = 42
	extEditRefused     = 43
	extSwapRefused     = 44
	extGiftCardUnknown = 45
	extNoBalance       = 46
	extBookingNotFound = 47
	extRefundRequired  = 48
	extAmountMismatch  = 49
	extOrderCompleted  = 50
)

const maxBodyBytes = 1 << 20

// apiError is a refusal. status is the HTTP status of the camelCase family
// (0 means 400); the PascalCase families answer 200 unless malformed.
type apiError struct {
	status    int
	result    int
	ext       int
	reason    string
	msg       string
	malformed bool
}

func (e *apiError) Error() string { return e.msg }

func invalid(format string, args ...any) *apiError {
	return &apiError{result: resInvalidRequest, reason: "invalid_request", msg: fmt.Sprintf(format, args...)}
}

func malformed(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, result: resInvalidRequest, reason: "invalid_request", msg: fmt.Sprintf(format, args...), malformed: true}
}

var (
	errOrderNotFound = &apiError{status: http.StatusNotFound, result: resInvalidRequest, ext: extOrderNotFound, reason: "not_found", msg: "order not found"}
	errOrderExpired  = &apiError{status: http.StatusGone, result: resInvalidRequest, ext: extOrderExpired, reason: "expired", msg: "order expired"}
	errNotInEdit     = &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extNotInEdit, reason: "not_supported_in_edit", msg: "operation not supported while the order is in edit state"}
	errCompleted     = &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extOrderCompleted, reason: "order_completed", msg: "order already completed or awaiting external payment"}
)

// reply is what a handler answers: a body to encode or pre-encoded bytes.
type reply struct {
	status int
	body   any
	raw    []byte
}

func okReply(body any) reply { return reply{status: http.StatusOK, body: body} }

// ticketingEnvelope is the PascalCase result envelope.
type ticketingEnvelope struct {
	Result             int     `json:"Result"`
	ExtendedResultCode int     `json:"ExtendedResultCode"`
	ErrorDescription   *string `json:"ErrorDescription"`
}

type camelEnvelope struct {
	Result             int     `json:"result"`
	ExtendedResultCode int     `json:"extendedResultCode"`
	ErrorDescription   *string `json:"errorDescription"`
	Reason             string  `json:"reason,omitempty"`
}

func errReply(fam family, e *apiError) reply {
	desc := e.msg
	status := http.StatusOK
	if e.malformed {
		status = e.status
	}
	switch fam {
	case famData:
		return reply{status: status, body: struct {
			ResponseCode     int     `json:"ResponseCode"`
			ErrorDescription *string `json:"ErrorDescription"`
		}{e.result, &desc}}
	case famBooking:
		return reply{status: status, body: struct {
			ResultCode         int       `json:"ResultCode"`
			ExtendedResultCode int       `json:"ExtendedResultCode"`
			ErrorDescription   *string   `json:"ErrorDescription"`
			Booking            *struct{} `json:"Booking"` // null, as the real service answers
		}{e.result, e.ext, &desc, nil}}
	case famEdit:
		status = e.status
		if status == 0 {
			status = http.StatusBadRequest
		}
		return reply{status: status, body: camelEnvelope{e.result, e.ext, &desc, e.reason}}
	}
	return reply{status: status, body: ticketingEnvelope{e.result, e.ext, &desc}}
}

type handlerFunc func(r *http.Request) reply

// routes registers every endpoint. Paths are registered without a method so
// that a wrong method gets the envelope (405) instead of the mux's plain text.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	r := func(method, path, op string, fam family, h handlerFunc) {
		mux.Handle(path, s.endpoint(method, op, fam, h))
	}
	r(http.MethodGet, "/OData.svc/Cinemas", "Cinemas", famData, s.handleCinemas)
	r(http.MethodGet, "/OData.svc/ScheduledFilms", "Films", famData, s.handleFilms)
	r(http.MethodGet, "/OData.svc/Sessions", "Sessions", famData, s.handleSessions)
	r(http.MethodGet, "/RESTData.svc/cinemas/{cinemaId}/sessions/{sessionId}/seat-plan", "SeatPlan", famData, s.handleSeatPlan)
	r(http.MethodGet, "/RESTData.svc/cinemas/{cinemaId}/sessions/{sessionId}/tickets", "TicketTypes", famData, s.handleTicketTypes)

	r(http.MethodPost, "/RESTTicketing.svc/order/tickets", "AddTickets", famTicketing, s.handleAddTickets)
	r(http.MethodPost, "/RESTTicketing.svc/order/tickets/remove", "RemoveTickets", famTicketing, s.handleRemoveTickets)
	r(http.MethodPost, "/RESTTicketing.svc/order/seats", "SetSelectedSeats", famTicketing, s.handleSetSelectedSeats)
	r(http.MethodPost, "/RESTTicketing.svc/order", "GetOrder", famTicketing, s.handleGetOrder)
	r(http.MethodPost, "/RESTTicketing.svc/order/reset-expiry", "ResetOrderExpiry", famTicketing, s.handleResetOrderExpiry)
	r(http.MethodPost, "/RESTTicketing.svc/order/cancel", "CancelOrder", famTicketing, s.handleCancelOrder)
	r(http.MethodPost, "/RESTTicketing.svc/order/payment", "CompleteOrder", famTicketing, s.handleCompleteOrder)
	r(http.MethodPost, "/RESTTicketing.svc/order/giftcard", "ApplyGiftCard", famTicketing, s.handleApplyGiftCard)
	r(http.MethodPost, "/RESTTicketing.svc/order/loyalty-points", "ApplyLoyaltyPointsPayment", famTicketing, s.handleApplyLoyalty)
	r(http.MethodPost, "/RESTTicketing.svc/order/startexternalpayment", "ExternalPaymentStarting", famTicketing, s.handleStartExternalPayment)
	r(http.MethodGet, "/RESTTicketing.svc/order/details", "GetOrderDetails", famTicketing, s.handleOrderDetails)

	r(http.MethodPost, "/cinemas/{cinemaId}/bookings/{bookingId}/edit", "EditBooking", famEdit, s.handleEditBooking)
	r(http.MethodPost, "/orders/{userSessionId}/complete-edit", "CompleteEditBooking", famEdit, s.handleCompleteEdit)
	r(http.MethodPost, "/RESTBooking.svc/booking", "GetSingleBooking", famBooking, s.handleGetSingleBooking)
	r(http.MethodPost, "/cinemas/{cinemaId}/bookings/{bookingId}/swap-seats", "SwapSeats", famEdit, s.handleSwapSeats)
	r(http.MethodPost, "/RESTBooking.svc/booking/collected", "MarkBookingCollected", famBooking, s.handleMarkBookingCollected)

	mux.Handle("/sandbox-admin/faults", s.admin(s.handleAdminFaults))
	mux.Handle("/sandbox-admin/stats", s.admin(s.handleAdminStats))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorize(w, r) {
			return
		}
		e := malformed("no such endpoint: %s %s", r.Method, r.URL.Path)
		e.status = http.StatusNotFound
		s.write(w, errReply(famTicketing, e))
	})
	return s.middleware(mux)
}

// endpoint wraps a handler with the steps every API call shares: token,
// method, call count, injected faults.
func (s *Server) endpoint(method, op string, fam family, h handlerFunc) http.Handler {
	counter := s.calls[op]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorize(w, r) {
			return
		}
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			e := malformed("method %s not allowed, use %s", r.Method, method)
			e.status = http.StatusMethodNotAllowed
			s.write(w, errReply(fam, e))
			return
		}
		counter.Add(1)
		if s.faults.inject(w, r, op, fam, s) {
			return
		}
		s.write(w, h(r))
	})
}

// authorize checks the connectapitoken header: missing 401; a wrong token,
// or the right one under a raw name that is not exactly "connectapitoken",
// 403 with the same body (wire-profile "Transport").
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	got := r.Header.Get(tokenHeader)
	status, msg := http.StatusForbidden, "invalid API token"
	switch {
	case got == "":
		status, msg = http.StatusUnauthorized, "missing connectapitoken header"
	case s.rawTokenNameOK(r) && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1:
		return true
	}
	e := malformed("%s", msg)
	e.status = status
	s.write(w, errReply(famTicketing, e))
	return false
}

// rawTokenNameOK reports whether the token header came under its exact
// lower-case name. A request served without WrapListener and ConnContext
// cannot be checked and passes (logged once).
func (s *Server) rawTokenNameOK(r *http.Request) bool {
	names, ok := rawTokenNames(r)
	if !ok {
		s.uncheckedOnce.Do(func() {
			s.log.Warn("the raw name of the token header is not checked: serve the sandbox with sandbox.Serve, or WrapListener and ConnContext")
		})
		return true
	}
	for _, n := range names {
		if n != tokenHeader {
			s.log.Info("token header refused: its raw name is not "+tokenHeader, "raw_name", n, "path", r.URL.Path)
			return false
		}
	}
	return true
}

func (s *Server) write(w http.ResponseWriter, rep reply) {
	b := rep.raw
	if b == nil {
		var err error
		b, err = json.Marshal(rep.body)
		if err != nil {
			s.log.Error("encode response", "err", err)
			rep.status = http.StatusInternalServerError
			b = []byte(`{"Result":1,"ExtendedResultCode":0,"ErrorDescription":"response encoding failed"}`)
		}
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(rep.status)
	_, _ = w.Write(b)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (sw *statusWriter) WriteHeader(code int) {
	if sw.status == 0 {
		sw.status = code
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *statusWriter) Write(b []byte) (int, error) {
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	return sw.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Hijack for the dropped-connection fault.
func (sw *statusWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// middleware echoes X-Request-ID, turns a panic into an envelope instead of
// a dropped connection, and logs each request.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rid := r.Header.Get("X-Request-ID")
		if rid != "" {
			w.Header().Set("X-Request-ID", rid)
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panic", "path", r.URL.Path, "panic", v, "request_id", rid)
				if sw.status == 0 {
					s.write(sw, reply{status: http.StatusInternalServerError, body: ticketingEnvelope{Result: resUnexpected, ErrorDescription: ptr("internal error")}})
				}
			}
			if s.log.Enabled(r.Context(), slog.LevelDebug) {
				s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "duration", time.Since(start), "request_id", rid)
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

func ptr[T any](v T) *T { return &v }

// decodeBody reads a JSON request body. allowEmpty treats an empty body as
// "{}" (complete-edit of an unpaid booking may send nothing).
func decodeBody(r *http.Request, v any, allowEmpty bool) *apiError {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return malformed("read body: %v", err)
	}
	if len(data) > maxBodyBytes {
		return malformed("body larger than %d bytes", maxBodyBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if allowEmpty {
			return nil
		}
		return malformed("empty body, a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return malformed("malformed JSON body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return malformed("malformed JSON body: data after the object")
	}
	return nil
}

// flexString accepts a JSON string or number (clients send SessionId and
// BookingNumber both ways).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*f = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string or a number: %w", err)
	}
	*f = flexString(n.String())
	return nil
}

// flexInt accepts a JSON number or a numeric string.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	var s flexString
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if s == "" {
		*f = 0
		return nil
	}
	n, err := strconv.Atoi(string(s))
	if err != nil {
		return fmt.Errorf("want an integer: %w", err)
	}
	*f = flexInt(n)
	return nil
}

// validSessionID reports whether id is 32 lowercase hex characters.
func validSessionID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// legacyDate is written in the WCF form "\/Date(ms+hhmm)\/" with the
// escaped slashes the real service sends.
type legacyDate struct{ t time.Time }

func (d legacyDate) MarshalJSON() ([]byte, error) {
	_, off := d.t.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Appendf(nil, `"\/Date(%d%c%02d%02d)\/"`, d.t.UnixMilli(), sign, off/3600, off%3600/60), nil
}

func isoUTC(t time.Time) string { return t.UTC().Format(time.RFC3339) }
