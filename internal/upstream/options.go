package upstream

import (
	"log/slog"
	"maps"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Option configures a Client or a PaymentClient.
type Option func(*config)

// RetryPolicy says how safe reads are retried: at most MaxAttempts attempts
// in all, waiting a capped exponential backoff with jitter between them
// (BaseDelay, 2×BaseDelay, … at most MaxDelay; each wait is drawn between
// half and all of that), and never past the call's deadline.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// BreakerSettings configures the circuit breaker of one upstream: it opens
// after ConsecutiveFailures unavailable-type failures in a row, stays open
// for OpenTimeout, then lets HalfOpenRequests trial calls through.
type BreakerSettings struct {
	ConsecutiveFailures uint32
	OpenTimeout         time.Duration
	HalfOpenRequests    uint32
}

// Defaults.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultCurrency        = "EUR"
	DefaultVersion         = "dev"
	maxResponseBytes int64 = 16 << 20
)

// DefaultMaxIdleConnsPerHost is how many idle keep-alive connections the client keeps to the
// upstream. At 200 page views a second with 20 ms per call and up to three reads in parallel,
// about 4 to 12 calls are in flight; 64 covers bursts of several times that without opening
// (and TLS-handshaking) new connections, where Go's default of 2 closed all but two after
// every burst.
const DefaultMaxIdleConnsPerHost = 64

// NewTransport is http.DefaultTransport's settings with maxIdlePerHost idle connections per
// host (DefaultMaxIdleConnsPerHost when < 1) and twice that in all.
func NewTransport(maxIdlePerHost int) *http.Transport {
	if maxIdlePerHost < 1 {
		maxIdlePerHost = DefaultMaxIdleConnsPerHost
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.MaxIdleConns = max(t.MaxIdleConns, 2*maxIdlePerHost)
	return t
}

// DefaultRetryPolicy is used unless WithRetry says otherwise.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second}

// DefaultBreakerSettings is used unless WithBreaker says otherwise.
var DefaultBreakerSettings = BreakerSettings{ConsecutiveFailures: 5, OpenTimeout: 15 * time.Second, HalfOpenRequests: 1}

type config struct {
	httpClient    *http.Client // nil: one on NewTransport(maxIdle)
	maxIdle       int
	timeout       time.Duration
	opTimeouts    map[string]time.Duration
	logger        *slog.Logger
	registerer    prometheus.Registerer
	version       string
	currency      string
	retry         RetryPolicy
	breaker       BreakerSettings
	bookingStatus BookingStatusMapping
	paymentStatus PaymentStatusMapping
	seatStatus    SeatStatusMapping

	headers         []Header
	paths           Paths
	tenders         Tenders
	printStreamType string
	bookingModes    BookingModes
	location        *time.Location // for cinemas whose TimeZoneId is absent or unknown
}

func newConfig(opts []Option) config {
	cfg := config{
		timeout:       DefaultTimeout,
		opTimeouts:    map[string]time.Duration{},
		logger:        slog.New(slog.DiscardHandler),
		version:       DefaultVersion,
		currency:      DefaultCurrency,
		retry:         DefaultRetryPolicy,
		breaker:       DefaultBreakerSettings,
		bookingStatus: DefaultBookingStatusMapping(),
		paymentStatus: DefaultPaymentStatusMapping(),
		seatStatus:    DefaultSeatStatusMapping(),

		paths:           DefaultPaths(),
		tenders:         DefaultTenders,
		printStreamType: DefaultPrintStreamType,
		bookingModes:    DefaultBookingModes,
		location:        time.UTC,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.httpClient == nil {
		cfg.httpClient = &http.Client{Transport: NewTransport(cfg.maxIdle)}
	}
	if cfg.retry.MaxAttempts < 1 {
		cfg.retry.MaxAttempts = 1
	}
	return cfg
}

func (c *config) timeoutFor(op string) time.Duration {
	if d, ok := c.opTimeouts[op]; ok && d > 0 {
		return d
	}
	return c.timeout
}

// WithHTTPClient sets the HTTP client (transport, proxies, TLS). Its own
// Timeout should be zero or longer than the call deadlines, which bound every
// call anyway.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) {
		if hc != nil {
			c.httpClient = hc
		}
	}
}

// WithMaxIdleConnsPerHost sets how many idle connections to the upstream are kept for reuse
// (default DefaultMaxIdleConnsPerHost). It has no effect together with WithHTTPClient, whose
// transport is used as it is.
func WithMaxIdleConnsPerHost(n int) Option {
	return func(c *config) { c.maxIdle = n }
}

// WithTimeout sets the default deadline of a call (all attempts included).
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithOperationTimeout sets the deadline of one operation (an Op* name).
func WithOperationTimeout(op string, d time.Duration) Option {
	return func(c *config) { c.opTimeouts[op] = d }
}

// WithLogger sets the logger; each call logs one debug line (operation,
// duration, status and result codes; never the token or card data).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithRegisterer registers the client's metrics (upstream_request_duration_seconds,
// upstream_requests_total) on r. Without it no metrics are kept.
func WithRegisterer(r prometheus.Registerer) Option {
	return func(c *config) { c.registerer = r }
}

// WithVersion sets the version in the User-Agent ("cinemabff/<version>").
func WithVersion(v string) Option {
	return func(c *config) {
		if v != "" {
			c.version = v
		}
	}
}

// WithCurrency sets the currency of amounts for cinemas whose currency the
// client has not learnt from ListCinemas.
func WithCurrency(code string) Option {
	return func(c *config) {
		if code != "" {
			c.currency = code
		}
	}
}

// WithTimeZone sets the zone of cinemas whose TimeZoneId is absent or not
// understood.
func WithTimeZone(loc *time.Location) Option {
	return func(c *config) {
		if loc != nil {
			c.location = loc
		}
	}
}

// WithRetry sets the retry policy of safe reads. MaxAttempts 1 disables retries.
func WithRetry(p RetryPolicy) Option {
	return func(c *config) { c.retry = p }
}

// WithBreaker sets the circuit breaker settings.
func WithBreaker(s BreakerSettings) Option {
	return func(c *config) {
		if s.ConsecutiveFailures == 0 {
			s.ConsecutiveFailures = DefaultBreakerSettings.ConsecutiveFailures
		}
		if s.OpenTimeout <= 0 {
			s.OpenTimeout = DefaultBreakerSettings.OpenTimeout
		}
		if s.HalfOpenRequests == 0 {
			s.HalfOpenRequests = 1
		}
		c.breaker = s
	}
}

// WithBookingStatusMapping replaces the mapping of edit-order bookingStatus
// numbers to line states. Numbers not in m read as cinema.LineUnknown.
func WithBookingStatusMapping(m BookingStatusMapping) Option {
	return func(c *config) { c.bookingStatus = maps.Clone(m) }
}

// WithPaymentStatusMapping replaces the mapping of PaymentStatus letters.
// Letters not in m read as cinema.PaymentUnknown.
func WithPaymentStatusMapping(m PaymentStatusMapping) Option {
	return func(c *config) { c.paymentStatus = maps.Clone(m) }
}

// WithSeatStatusMapping replaces the mapping of seat Status numbers.
// Numbers not in m read as unknown kind and availability.
func WithSeatStatusMapping(m SeatStatusMapping) Option {
	return func(c *config) { c.seatStatus = maps.Clone(m) }
}

// BookingStatusMapping maps the edit order's bookingStatus numbers.
type BookingStatusMapping map[int]cinema.LineState

// PaymentStatusMapping maps the single-letter PaymentStatus codes.
type PaymentStatusMapping map[string]cinema.PaymentStatus

// SeatState is what one seat Status number means. A zero Kind means "the
// number does not say" (Sold, Reserved): the kind is then read from
// OriginalStatus.
type SeatState struct {
	Kind         cinema.SeatKind
	Availability cinema.SeatAvailability
}

// SeatStatusMapping maps seat Status / OriginalStatus numbers.
type SeatStatusMapping map[int]SeatState

// DefaultBookingStatusMapping is the wire profile's: 0 booked, 1 added, 2 removed.
func DefaultBookingStatusMapping() BookingStatusMapping {
	return BookingStatusMapping{0: cinema.LineKept, 1: cinema.LineAdded, 2: cinema.LineRemoved}
}

// DefaultPaymentStatusMapping is the wire profile's: P pending, Y paid,
// N declined, C cancelled, R refunded.
func DefaultPaymentStatusMapping() PaymentStatusMapping {
	return PaymentStatusMapping{
		"P": cinema.PaymentPending, "Y": cinema.PaymentPaid, "N": cinema.PaymentDeclined,
		"C": cinema.PaymentCancelled, "R": cinema.PaymentRefunded,
	}
}

// DefaultSeatStatusMapping is the wire profile's: 0 Empty, 1 Sold, 2 House,
// 3 Special (wheelchair), 4 Reserved, 5 Broken, 6 Placeholder, 7 Companion.
func DefaultSeatStatusMapping() SeatStatusMapping {
	return SeatStatusMapping{
		0: {cinema.SeatKindNormal, cinema.SeatFree},
		1: {cinema.SeatKindUnknown, cinema.SeatTaken},
		2: {cinema.SeatKindHouse, cinema.SeatUnavailable},
		3: {cinema.SeatKindWheelchair, cinema.SeatFree},
		4: {cinema.SeatKindUnknown, cinema.SeatHeld},
		5: {cinema.SeatKindBroken, cinema.SeatUnavailable},
		6: {cinema.SeatKindUnknown, cinema.SeatUnavailable},
		7: {cinema.SeatKindCompanion, cinema.SeatFree},
	}
}

func (m BookingStatusMapping) lineState(v int) cinema.LineState {
	if s, ok := m[v]; ok {
		return s
	}
	return cinema.LineUnknown
}

func (m PaymentStatusMapping) status(letter string) cinema.PaymentStatus {
	if s, ok := m[letter]; ok {
		return s
	}
	return cinema.PaymentUnknown
}

// seat resolves a seat's kind and availability from its Status and
// OriginalStatus.
func (m SeatStatusMapping) seat(status, original int) (cinema.SeatKind, cinema.SeatAvailability) {
	cur, known := m[status]
	if !known {
		return cinema.SeatKindUnknown, cinema.SeatUnknown
	}
	kind := cur.Kind
	if orig, ok := m[original]; ok && orig.Kind != cinema.SeatKindUnknown {
		kind = orig.Kind
	}
	if kind == cinema.SeatKindUnknown {
		kind = cinema.SeatKindNormal // a known status that does not say what the place is
	}
	return kind, cur.Availability
}
