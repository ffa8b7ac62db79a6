package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/flight"
)

// Operation names, used in metrics, logs, errors and WithOperationTimeout.
const (
	OpEditBooking               = "EditBooking"
	OpAddTickets                = "AddTickets"
	OpRemoveTickets             = "RemoveTickets"
	OpSetSelectedSeats          = "SetSelectedSeats"
	OpGetOrder                  = "GetOrder"
	OpResetOrderExpiry          = "ResetOrderExpiry"
	OpCancelOrder               = "CancelOrder"
	OpCompleteEditBooking       = "CompleteEditBooking"
	OpCompleteOrder             = "CompleteOrder"
	OpApplyGiftCard             = "ApplyGiftCard"
	OpApplyLoyaltyPointsPayment = "ApplyLoyaltyPointsPayment"
	OpExternalPaymentStarting   = "ExternalPaymentStarting"
	OpGetOrderDetails           = "GetOrderDetails"
	OpGetSingleBooking          = "GetSingleBooking"
	OpSwapSeats                 = "SwapSeats"
	OpListCinemas               = "ListCinemas"
	OpListFilms                 = "ListFilms"
	OpListSessions              = "ListSessions"
	OpGetSeatPlan               = "GetSeatPlan"
	OpGetTicketTypes            = "GetTicketTypes"
	OpCreatePayment             = "CreatePayment"
	OpGetPayment                = "GetPayment"
	OpCancelPayment             = "CancelPayment"
	OpRefund                    = "Refund"
	OpGetRefund                 = "GetRefund"
	OpListReaders               = "ListReaders"
	OpRegisterReader            = "RegisterReader"
	OpEnsureLocation            = "EnsureLocation"
	OpGetReader                 = "GetReader"
	OpStartReaderPayment        = "StartReaderPayment"
	OpCancelReaderAction        = "CancelReaderAction"
)

type requestIDKey struct{}

// WithRequestID returns a context whose calls carry id as X-Request-ID.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id set by WithRequestID, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// Client is the ticketing API client. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	token   string
	cfg     config
	t       *transport
	details flight.Group[cinema.OrderDetails]

	mu      sync.RWMutex
	cinemas map[string]cinemaFacts // learnt from ListCinemas
}

// New returns a client of the ticketing API at baseURL (the {base_url} of the
// contract) authenticating with token.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	u, err := parseBase(baseURL)
	if err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	headers := cfg.headers
	t, err := newTransport("ticketing", cfg, func(h http.Header) {
		for _, x := range headers {
			setRaw(h, x.Name, x.Value)
		}
		setRaw(h, tokenHeader, token)
	})
	if err != nil {
		return nil, err
	}
	c := &Client{base: u, token: token, cfg: cfg, t: t, cinemas: map[string]cinemaFacts{}}
	c.details.Health, c.details.Budget = c, ReadDeadline
	return c, nil
}

func parseBase(baseURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("upstream: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("upstream: base URL %q: need an absolute http(s) URL", baseURL)
	}
	return u, nil
}

// Ready returns nil while the circuit breaker lets calls through (closed or
// half-open), and an ErrUnavailable error while it is open. For /readyz.
func (c *Client) Ready() error { return c.t.ready() }

// Mark is the number of the latest call to the ticketing API begun (calls
// are numbered in the order they begin). With AnsweredSince it tells a shared
// read (internal/flight) whether the API has answered well since it began.
func (c *Client) Mark() uint64 { return c.t.breaker.began.Load() }

// AnsweredSince reports whether a call begun after mark answered well (a
// business refusal is a good answer too: only outages are not).
func (c *Client) AnsweredSince(mark uint64) bool { return c.t.breaker.wellFrom.Load() > mark }

// request describes one call.
type request struct {
	op       string
	method   string
	path     string // below the base URL, segments already escaped
	query    url.Values
	rawQuery string // used when query is empty
	body     any    // encoded as JSON when non-nil
	read     bool   // safe to repeat: retried on ErrUnavailable
}

// routed builds the request of op from the paths table: its method, path and
// query, with params in the placeholders. extra adds query values (e.g. the
// optional userSessionId of ticket types).
func (c *Client) routed(op string, params routeParams, body any, read bool, extra url.Values) (request, error) {
	method, path, rawQuery, err := c.cfg.paths.target(op, params)
	if err != nil {
		return request{}, &Error{Op: op, Kind: ErrInvalidRequest, Err: err}
	}
	if len(extra) > 0 {
		if rawQuery != "" {
			rawQuery += "&"
		}
		rawQuery += extra.Encode()
	}
	return request{op: op, method: method, path: path, rawQuery: rawQuery, body: body, read: read}, nil
}

// do performs op through the paths table.
func do[T any](ctx context.Context, c *Client, op string, params routeParams, body any, read bool, extra url.Values) (*T, error) {
	req, err := c.routed(op, params, body, read, extra)
	if err != nil {
		return nil, err
	}
	return call[T](ctx, c.t, c.base, req)
}

// responder is implemented by wire responses that carry result codes.
type responder interface{ resultCodes() codes }

// transport does the HTTP work shared by both clients: deadlines, retries,
// the circuit breaker, headers, metrics and logs.
type transport struct {
	name    string
	cfg     config
	auth    func(http.Header)
	breaker *breaker
	metrics *metrics
}

func newTransport(name string, cfg config, auth func(http.Header)) (*transport, error) {
	m, err := newMetrics(cfg.registerer)
	if err != nil {
		return nil, err
	}
	return &transport{name: name, cfg: cfg, auth: auth, breaker: newBreaker(name, cfg.breaker, cfg.logger), metrics: m}, nil
}

func (t *transport) ready() error {
	if t.breaker.isOpen() {
		return &Error{Op: "Ready", Kind: ErrUnavailable, Err: fmt.Errorf("%s: %w", t.name, ErrCircuitOpen)}
	}
	return nil
}

// call performs req against base and decodes the answer into a new T. Reads
// are retried on ErrUnavailable within the deadline; writes never are.
func call[T any](ctx context.Context, t *transport, base *url.URL, req request) (*T, error) {
	out, err := callWithin[T](ctx, t, base, req)
	var e *Error
	if req.read && errors.As(err, &e) {
		e.Read = true
	}
	return out, err
}

// errReadBudget is the cause of a read cut off by the request's read deadline: the page ran
// out of time, which says nothing about the upstream's health, so the circuit breaker does
// not count it (readBudgetCut). A read that runs past its own timeout still counts. It wraps
// context.DeadlineExceeded: the read timed out all the same (TimedOut), and net/http returns
// the cause as the error of the call.
var errReadBudget = fmt.Errorf("upstream: the request's read budget ran out: %w", context.DeadlineExceeded)

// callWithin is call within the call's deadline: its own timeout and, for a read, the
// request's read deadline (WithReadDeadline), whichever comes first. Retries and their
// backoff stay inside it (sleepBackoff never waits past it).
func callWithin[T any](ctx context.Context, t *transport, base *url.URL, req request) (*T, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cfg.timeoutFor(req.op))
	defer cancel()
	if dl, ok := ReadDeadline(ctx); ok && req.read {
		var cancelRead context.CancelFunc
		ctx, cancelRead = context.WithDeadlineCause(ctx, dl, errReadBudget)
		defer cancelRead()
	}

	var body []byte
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return nil, &Error{Op: req.op, Kind: ErrInvalidRequest, Err: fmt.Errorf("encode request: %w", err)}
		}
		body = b
	}
	u := *base
	escaped := strings.TrimRight(base.EscapedPath(), "/") + req.path
	u.Path, _ = url.PathUnescape(escaped)
	u.RawPath = escaped
	if len(req.query) > 0 {
		u.RawQuery = req.query.Encode()
	} else if req.rawQuery != "" {
		u.RawQuery = req.rawQuery
	}
	target := u.String()

	attempts := 1
	if req.read {
		attempts = t.cfg.retry.MaxAttempts
	}
	for attempt := 1; ; attempt++ {
		out, err := attemptOnce[T](ctx, t, req, target, body, attempt)
		if err == nil || attempt >= attempts || !retryable(err) || ctx.Err() != nil {
			return out, err
		}
		if !sleepBackoff(ctx, t.cfg.retry, attempt) {
			return out, err
		}
	}
}

func attemptOnce[T any](ctx context.Context, t *transport, req request, target string, body []byte, attempt int) (*T, error) {
	var out *T
	err := t.breaker.run(func() error {
		var err error
		out, err = roundTrip[T](ctx, t, req, target, body, attempt)
		return err
	})
	if errors.Is(err, ErrCircuitOpen) {
		t.metrics.observe(req.op, "breaker_open", 0)
		return nil, &Error{Op: req.op, Kind: ErrUnavailable, Err: err, Outage: true}
	}
	return out, err
}

func roundTrip[T any](ctx context.Context, t *transport, req request, target string, body []byte, attempt int) (out *T, err error) {
	start := time.Now()
	status := 0
	var cs codes
	defer func() {
		d := time.Since(start)
		oc := outcome(err)
		t.metrics.observe(req.op, oc, d)
		t.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "upstream call",
			slog.String("upstream", t.name),
			slog.String("op", req.op),
			slog.String("method", req.method),
			slog.Int("attempt", attempt),
			slog.Int("status", status),
			slog.Int("result", cs.Result),
			slog.Int("extended_result", cs.ExtendedResultCode),
			slog.String("outcome", oc),
			slog.Duration("duration", d),
			slog.String("request_id", RequestID(ctx)),
		)
	}()

	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, target, rd)
	if err != nil {
		return nil, &Error{Op: req.op, Kind: ErrInvalidRequest, Err: err}
	}
	hr.Header.Set("Accept", "application/json")
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("User-Agent", "cinemabff/"+t.cfg.version)
	if id := RequestID(ctx); id != "" {
		hr.Header.Set("X-Request-ID", id)
	}
	t.auth(hr.Header)

	resp, err := t.cfg.httpClient.Do(hr)
	if err != nil {
		return nil, &Error{Op: req.op, Kind: ErrUnavailable, Err: err, Outage: true, budgetCut: cutByReadBudget(ctx)}
	}
	defer resp.Body.Close()
	status = resp.StatusCode
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, &Error{Op: req.op, HTTPStatus: status, Kind: ErrUnavailable, Err: fmt.Errorf("read body: %w", err), Outage: true,
			budgetCut: cutByReadBudget(ctx)}
	}

	if status < 200 || status > 299 {
		cs = probeCodes(raw)
		return nil, newError(req.op, status, cs)
	}
	v := new(T)
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, v); err != nil {
			// A 200 body we cannot read (a proxy's HTML page, a field of
			// an unexpected type): an answer we do not understand, named.
			e := badReply(req.op, status, err)
			t.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "upstream reply not understood",
				slog.String("upstream", t.name), slog.String("op", req.op), slog.String("field", e.Field),
				slog.String("detail", e.Error()), slog.String("request_id", RequestID(ctx)))
			return nil, e
		}
	}
	if r, ok := any(v).(responder); ok {
		cs = r.resultCodes()
		if !cs.ok() {
			return nil, newError(req.op, status, cs)
		}
	}
	return v, nil
}

// cutByReadBudget reports whether ctx ended because the request's read budget ran out
// (callWithin), rather than the call's own timeout or the caller.
func cutByReadBudget(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errReadBudget)
}

func newError(op string, status int, cs codes) *Error {
	kind := classify(status, cs)
	switch {
	case cs.Result == ResultUnexpectedError && cs.ExtendedResultCode == 0 && status < 300 && seatOps[op]:
		// The real service's answer to a seat someone else took.
		kind = ErrSeatsUnavailable
	case op == OpSwapSeats && cs.Result == ResultUnpaidBookingsDisallowed && kind != ErrSwapRefused:
		// The real service's code for the first swap restriction: said as that restriction.
		kind, cs.Reason = ErrSwapRefused, string(SwapUnpaidBooking)
	}
	return &Error{
		Op: op, HTTPStatus: status, Result: cs.Result, ExtendedResultCode: cs.ExtendedResultCode,
		Description: cs.Description, Reason: cs.Reason, Kind: kind,
		Outage: status >= 500,
	}
}

// badReply names what could not be read in a 200 body.
func badReply(op string, status int, err error) *Error {
	e := &Error{Op: op, HTTPStatus: status, Kind: ErrBadReply, Err: err}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var fe *fieldError
	switch {
	case errors.As(err, &fe):
		e.Field = fe.field
	case errors.As(err, &te):
		e.Field = te.Field
		if e.Field == "" {
			e.Field = te.Struct
		}
		e.Description = fmt.Sprintf("want %s, got JSON %s", te.Type, te.Value)
	case errors.As(err, &se):
		e.Description = fmt.Sprintf("not JSON at byte %d", se.Offset)
	}
	return e
}

// fieldError is a value of a field that a decoder refused; it names the
// field for the logs.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// probeCodes reads whatever code fields an error body has; a body that is
// not JSON yields no codes.
func probeCodes(raw []byte) codes {
	var p errorProbe
	if json.Unmarshal(raw, &p) != nil {
		return codes{Description: strings.TrimSpace(truncate(string(raw), 200))}
	}
	return p.resultCodes()
}

// errorProbe is the union of the error fields of every response family.
// encoding/json matches names case-insensitively, so "Result" also reads the
// camelCase "result".
type errorProbe struct {
	Result             *int    `json:"Result"`
	ResultCode         *int    `json:"ResultCode"`
	ResponseCode       *int    `json:"ResponseCode"`
	ExtendedResultCode int     `json:"ExtendedResultCode"`
	ErrorDescription   *string `json:"ErrorDescription"`
	Reason             string  `json:"reason"`
	ProviderError      string  `json:"error"`
	Message            string  `json:"message"`
}

func (p errorProbe) resultCodes() codes {
	c := codes{ExtendedResultCode: p.ExtendedResultCode, Reason: p.Reason}
	switch {
	case p.Result != nil:
		c.Result = *p.Result
	case p.ResultCode != nil:
		c.Result = *p.ResultCode
	case p.ResponseCode != nil:
		c.Result = *p.ResponseCode
	}
	if p.ErrorDescription != nil {
		c.Description = *p.ErrorDescription
	}
	if c.Reason == "" {
		c.Reason = p.ProviderError
	}
	if c.Description == "" {
		c.Description = p.Message
	}
	return c
}
