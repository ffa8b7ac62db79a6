package upstream

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Sentinel errors. Every error of the client is an *Error that matches one
// (or, for a few, two) of these with errors.Is.
var (
	// ErrNotFound: unknown booking, order, session, cinema or payment.
	ErrNotFound = errors.New("upstream: not found")
	// ErrOrderExpired: the order's hold time ran out; its seats are released.
	ErrOrderExpired = errors.New("upstream: order expired")
	// ErrSeatsUnavailable: the seats asked for are taken or held.
	ErrSeatsUnavailable = errors.New("upstream: seats unavailable")
	// ErrEditRefused: an edit (start or completion) was refused by a rule;
	// Error.EditRestriction says which.
	ErrEditRefused = errors.New("upstream: edit refused")
	// ErrSwapRefused: a seat swap was refused by a rule; Error.SwapRestriction
	// says which.
	ErrSwapRefused = errors.New("upstream: seat swap refused")
	// ErrPaymentDeclined: a payment (gift card, loyalty, card) was declined.
	ErrPaymentDeclined = errors.New("upstream: payment declined")
	// ErrInsufficientBalance: not enough balance on a gift card or loyalty
	// account. It also matches ErrPaymentDeclined.
	ErrInsufficientBalance = errors.New("upstream: insufficient balance")
	// ErrOrderClosed: the order is already completed or awaiting an external
	// payment, so it cannot be changed.
	ErrOrderClosed = errors.New("upstream: order completed or awaiting payment")
	// ErrInvalidRequest: the upstream refused the request as malformed or not
	// allowed in the order's state.
	ErrInvalidRequest = errors.New("upstream: invalid request")
	// ErrUnauthorized: the API token or key was missing or refused (HTTP
	// 401/403): a configuration problem.
	ErrUnauthorized = errors.New("upstream: unauthorized")
	// ErrUnavailable: transport failure, timeout, HTTP 5xx, an upstream-side
	// failure code, or the circuit breaker is open. The cause is wrapped.
	ErrUnavailable = errors.New("upstream: unavailable")
	// ErrBadReply: a reply that could not be understood (not JSON, a field
	// of the wrong type, a required field missing). Error.Field names the
	// field. It also matches ErrUnavailable, so a person sees that the
	// cinema's system cannot be used right now; it is not an outage, so it
	// neither trips the circuit breaker nor is retried.
	ErrBadReply = errors.New("upstream: reply not understood")
	// ErrAmountTooSmall: the payment provider does not take an amount this
	// small (Stripe: 0.50 in EUR and USD).
	ErrAmountTooSmall = errors.New("upstream: amount below the provider's minimum")
	// ErrPaymentNotPaid: a refund was asked for a payment that is not paid.
	ErrPaymentNotPaid = errors.New("upstream: payment not paid")
	// ErrRefundExceedsRefundable: a refund larger than what remains refundable.
	ErrRefundExceedsRefundable = errors.New("upstream: refund exceeds refundable amount")
)

// Result codes (Result / ResultCode / ResponseCode), by position in the
// published list.
const (
	ResultOK                           = 0
	ResultUnexpectedError              = 1
	ResultDBError                      = 2
	ResultMembershipError              = 3
	ResultInvalidRequestData           = 4
	ResultCinemaConnectError           = 5
	ResultLoyaltyConnectError          = 6
	ResultInsufficientPoints           = 7
	ResultSeatsUnavailable             = 8
	ResultFailedSeatDataRetrieve       = 9
	ResultFailedOrderValueProcess      = 10
	ResultPrepareOrderForCompleteError = 11
	ResultPaymentDeclined              = 12
	ResultPaymentSystemError           = 13
	ResultPostChargeCommitError        = 14
	ResultUnpaidBookingsDisallowed     = 15
	ResultVouchersDisallowed           = 16
	ResultMemberNotFound               = 17
	ResponseSessionNotFound            = 50 // data calls: session or cinema not found
)

// Extended result codes of the wire profile (47 and 48 observed upstream).
const (
	ExtOrderNotFound       = 40
	ExtOrderExpired        = 41
	ExtNotInEditState      = 42 // operation not supported while in edit state
	ExtEditRefused         = 43
	ExtSwapRefused         = 44
	ExtGiftCardRejected    = 45
	ExtInsufficientBalance = 46
	ExtBookingNotFound     = 47
	ExtRefundRequired      = 48
	ExtAmountMismatch      = 49
	ExtOrderClosed         = 50
)

// EditRestriction is the machine word of an edit refusal (`reason`).
type EditRestriction string

// Edit refusal reasons of the wire profile.
const (
	EditConcessions             EditRestriction = "concessions"
	EditNonExternalPayment      EditRestriction = "non_external_payment"
	EditPackageTicket           EditRestriction = "package_ticket"
	EditLoyaltyTicket           EditRestriction = "loyalty_ticket"
	EditVoucherTicket           EditRestriction = "voucher_ticket"
	EditThirdPartyMemberTicket  EditRestriction = "third_party_member_ticket"
	EditAlreadyInEdit           EditRestriction = "already_in_edit"
	EditUnpaidRequiresNoPayment EditRestriction = "unpaid_requires_no_payment"
	EditPaymentRequired         EditRestriction = "payment_required"
	EditRefundRequired          EditRestriction = "refund_required"
	EditAmountMismatch          EditRestriction = "amount_mismatch"
	EditSessionStarted          EditRestriction = "session_started"
)

// SwapRestriction is the machine word of a swap refusal (`reason`).
type SwapRestriction string

// Swap refusal reasons of the wire profile.
const (
	SwapUnpaidBooking         SwapRestriction = "unpaid_booking"
	SwapInSeatDelivery        SwapRestriction = "in_seat_delivery"
	SwapDifferentSession      SwapRestriction = "different_session"
	SwapDifferentAreaCategory SwapRestriction = "different_area_category"
	SwapSeatUnavailable       SwapRestriction = "seat_unavailable"
	SwapSeatInBooking         SwapRestriction = "seat_in_booking"
	SwapPartialPackage        SwapRestriction = "partial_package"
	SwapUnknownTicket         SwapRestriction = "unknown_ticket"
	SwapDuplicateSeat         SwapRestriction = "duplicate_seat"
	SwapInvalidSeat           SwapRestriction = "invalid_seat"
	SwapSessionStarted        SwapRestriction = "session_started"
)

// Error is a failed upstream call. It keeps the original codes and
// description for logs and matches its Kind (a sentinel above) with errors.Is.
type Error struct {
	Op                 string // operation name, e.g. "GetOrder"
	HTTPStatus         int    // 0 when no response was received
	Result             int    // Result, ResultCode or ResponseCode of the body
	ExtendedResultCode int
	Description        string // ErrorDescription (or the provider's message)
	Reason             string // machine word of an edit/swap refusal or provider error
	Kind               error  // the sentinel this error matches; nil when unclassified
	Err                error  // the cause (transport error, context error), if any
	Field              string // ErrBadReply: the field that could not be read
	// Outage is set for transport failures, timeouts and HTTP 5xx: only they
	// count toward the circuit breaker and are retried. A code in a 200
	// body is an answer, even when it reads like a failure.
	Outage bool
	// Read is set for a failed read (a safe call): nothing was changed upstream by it.
	Read bool
	// budgetCut is set for a read that got no answer because the request's read budget ran
	// out (errReadBudget): still an outage to the page (slow, retry later), but the circuit
	// breaker does not count it.
	budgetCut bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("upstream ")
	b.WriteString(e.Op)
	b.WriteString(": ")
	if e.Kind != nil {
		b.WriteString(strings.TrimPrefix(e.Kind.Error(), "upstream: "))
	} else {
		b.WriteString("failed")
	}
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.HTTPStatus)
		if e.Result != 0 || e.ExtendedResultCode != 0 {
			fmt.Fprintf(&b, ", result %d/%d", e.Result, e.ExtendedResultCode)
		}
		if e.Reason != "" {
			fmt.Fprintf(&b, ", reason %s", e.Reason)
		}
		b.WriteString(")")
	}
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	if e.Description != "" {
		b.WriteString(": ")
		b.WriteString(e.Description)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(causeText(e.Err))
	}
	return b.String()
}

// causeText is the cause's words without the address of the request. Go's client names the
// URL of a call that failed in transport, and an order's paths carry its userSessionId, which
// stays on the server: an error's text goes to logs, to the ledger and to the page of Needs
// attention. The operation's name already says which call it was.
func causeText(err error) string {
	text := err.Error()
	var ue *url.Error
	if !errors.As(err, &ue) || ue.URL == "" {
		return text
	}
	shown := "…"
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		shown = u.Scheme + "://" + u.Host + "/…"
	}
	text = strings.ReplaceAll(text, strconv.Quote(ue.URL), strconv.Quote(shown))
	return strings.ReplaceAll(text, ue.URL, shown)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the error's Kind, and the broader kinds it implies.
func (e *Error) Is(target error) bool {
	if e.Kind == nil {
		return false
	}
	if target == e.Kind {
		return true
	}
	switch target {
	case ErrUnavailable:
		return e.Kind == ErrBadReply
	case ErrPaymentDeclined:
		return e.Kind == ErrInsufficientBalance
	case ErrSeatsUnavailable:
		// A swap to a seat that is taken is also "seats unavailable".
		return e.Kind == ErrSwapRefused && (e.Reason == string(SwapSeatUnavailable) || e.Reason == string(SwapSeatInBooking))
	}
	return false
}

// EditRestriction returns the restriction of an edit refusal ("" otherwise).
func (e *Error) EditRestriction() EditRestriction {
	if e.Kind != ErrEditRefused {
		return ""
	}
	if e.Reason != "" {
		return EditRestriction(e.Reason)
	}
	switch e.ExtendedResultCode {
	case ExtRefundRequired:
		return EditRefundRequired
	case ExtAmountMismatch:
		return EditAmountMismatch
	}
	return ""
}

// SwapRestriction returns the restriction of a swap refusal ("" otherwise).
func (e *Error) SwapRestriction() SwapRestriction {
	if e.Kind != ErrSwapRefused {
		return ""
	}
	return SwapRestriction(e.Reason)
}

// EditRefusal reports the restriction when err is an edit refusal.
func EditRefusal(err error) (EditRestriction, bool) {
	var e *Error
	if errors.As(err, &e) && e.Kind == ErrEditRefused {
		return e.EditRestriction(), true
	}
	return "", false
}

// SwapRefusal reports the restriction when err is a swap refusal.
func SwapRefusal(err error) (SwapRestriction, bool) {
	var e *Error
	if errors.As(err, &e) && e.Kind == ErrSwapRefused {
		return e.SwapRestriction(), true
	}
	return "", false
}

// codes is what a response body says about success: the union of the code
// fields of every response family.
type codes struct {
	Result             int
	ExtendedResultCode int
	Description        string
	Reason             string
}

func (c codes) ok() bool { return c.Result == 0 && c.ExtendedResultCode == 0 }

// classify picks the sentinel for a refusal. The extended code is the most
// precise, then the HTTP status of the camelCase family, then the result code.
func classify(status int, c codes) error {
	if err := classifyExtended(c); err != nil {
		return err
	}
	if err := classifyStatus(status); err != nil {
		return err
	}
	if err, ok := byResultCode[c.Result]; ok {
		return err
	}
	if status >= 400 {
		return ErrInvalidRequest
	}
	return nil
}

// byExtendedCode is the sentinel of each extended result code (ExtAmountMismatch depends on
// the family: classifyExtended).
var byExtendedCode = map[int]error{
	ExtOrderNotFound:       ErrNotFound,
	ExtBookingNotFound:     ErrNotFound,
	ExtOrderExpired:        ErrOrderExpired,
	ExtNotInEditState:      ErrInvalidRequest,
	ExtEditRefused:         ErrEditRefused,
	ExtRefundRequired:      ErrEditRefused,
	ExtSwapRefused:         ErrSwapRefused,
	ExtGiftCardRejected:    ErrPaymentDeclined,
	ExtInsufficientBalance: ErrInsufficientBalance,
	ExtOrderClosed:         ErrOrderClosed,
}

// classifyExtended is the sentinel the extended result code names, nil for none.
func classifyExtended(c codes) error {
	if c.ExtendedResultCode == ExtAmountMismatch {
		// The edit family names the rule in reason; on a regular order
		// (CompleteOrder, ExternalPaymentStarting) it is a request error.
		if c.Reason != "" {
			return ErrEditRefused
		}
		return ErrInvalidRequest
	}
	return byExtendedCode[c.ExtendedResultCode]
}

// classifyStatus is the sentinel an HTTP status of the camelCase family names, nil for none.
func classifyStatus(status int) error {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrUnauthorized
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusGone:
		return ErrOrderExpired
	case status == http.StatusConflict:
		return ErrSeatsUnavailable
	case status == http.StatusTooManyRequests || status >= 500:
		return ErrUnavailable
	}
	return nil
}

// byResultCode is the sentinel of each result code.
var byResultCode = map[int]error{
	ResultInvalidRequestData:           ErrInvalidRequest,
	ResultMembershipError:              ErrInvalidRequest,
	ResultUnpaidBookingsDisallowed:     ErrInvalidRequest,
	ResultVouchersDisallowed:           ErrInvalidRequest,
	ResultFailedOrderValueProcess:      ErrInvalidRequest,
	ResultPrepareOrderForCompleteError: ErrInvalidRequest,
	ResultSeatsUnavailable:             ErrSeatsUnavailable,
	ResultPaymentDeclined:              ErrPaymentDeclined,
	ResultInsufficientPoints:           ErrInsufficientBalance,
	ResultMemberNotFound:               ErrNotFound,
	ResponseSessionNotFound:            ErrNotFound,
	ResultUnexpectedError:              ErrUnavailable,
	ResultDBError:                      ErrUnavailable,
	ResultCinemaConnectError:           ErrUnavailable,
	ResultLoyaltyConnectError:          ErrUnavailable,
	ResultFailedSeatDataRetrieve:       ErrUnavailable,
	ResultPaymentSystemError:           ErrUnavailable,
	ResultPostChargeCommitError:        ErrUnavailable,
}

// isOutage reports whether err is an outage: transport failure, timeout,
// HTTP 5xx, or the open breaker.
func isOutage(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Outage
}

// readBudgetCut reports whether err is a read cut off by the request's read budget.
func readBudgetCut(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.budgetCut
}

// seatOps are the operations on which the real service answers a seat taken
// by someone else with the generic "unexpected error" (Result 1).
var seatOps = map[string]bool{OpSetSelectedSeats: true, OpAddTickets: true, OpSwapSeats: true}

// outcome is the metric label of an error.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind == nil {
		return "error"
	}
	switch e.Kind {
	case ErrNotFound:
		return "not_found"
	case ErrOrderExpired:
		return "expired"
	case ErrSeatsUnavailable:
		return "seats_unavailable"
	case ErrEditRefused, ErrSwapRefused, ErrOrderClosed:
		return "refused"
	case ErrPaymentDeclined, ErrInsufficientBalance, ErrPaymentNotPaid, ErrRefundExceedsRefundable:
		return "declined"
	case ErrInvalidRequest:
		return "invalid"
	case ErrUnauthorized:
		return "unauthorized"
	case ErrBadReply:
		return "bad_reply"
	case ErrUnavailable:
		if errors.Is(e.Err, errBreakerOpen) {
			return "breaker_open"
		}
		return "unavailable"
	}
	return "error"
}
