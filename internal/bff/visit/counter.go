package visit

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/views/components"
)

// CounterPayment is what the counter's payment form says.
type CounterPayment struct {
	Method    string // terminal | cash
	Reference string // the terminal's reference; ours for cash
	Tender    string
	CardType  string
	Given     string // cash: the amount given, as typed
	Change    string // cash: the change due, formatted ("" before the amount given is known)
	Field     string // the field the problem is about: "reference", "given" or ""
}

// ErrBadCounterPayment is a form the payment cannot be recorded from.
var ErrBadCounterPayment = errors.New("counter payment form incomplete")

// ErrConfirmCash is a cash payment whose change due is to be shown before it is recorded:
// the amount given was typed and the form was not yet confirmed (the page without JavaScript).
var ErrConfirmCash = errors.New("cash payment: show the change due first")

// ReadCounterPayment checks the form: the card reader needs the device to have one; a standalone
// terminal's typed reference (printable, at most 64 characters) is for supervisors; cash gets a
// reference of ours. The problem is in the page's language;
// CardType is stored data (the ledger, the audit trail) and stays English.
//
// Cash: the amount the customer gave ("given") is checked against due; the first submit with
// an amount and without confirm=1 answers ErrConfirmCash with the change due, so the clerk
// sees it before the payment is recorded (the script shows it live and confirms at once). No
// amount given means the exact amount.
func (v *Visits) ReadCounterPayment(c echo.Context, due cinema.Money) (CounterPayment, string, error) {
	l := web.Loc(c)
	p := CounterPayment{Method: c.FormValue("method"), Reference: strings.TrimSpace(c.FormValue("reference")),
		Given: strings.TrimSpace(c.FormValue("given"))}
	switch p.Method {
	case "reader":
		if !v.HasReader(c) {
			if v.ReaderMoved(c) != "" { // the page says where it went (CounterMethods)
				return p, l.T("staff.counter.reader_moved_refused"), ErrBadCounterPayment
			}
			return p, l.T("staff.counter.no_reader"), ErrBadCounterPayment
		}
		p.Given, p.Reference = "", ""
		p.Tender, p.CardType = cmp.Or(v.settings.TenderTerminal, "CREDIT"), "Card reader"
	case "terminal":
		if _, supervisor := v.kernel.StaffRole(c); !supervisor {
			// A typed reference is checked by nobody but the person typing it: a fallback for a
			// standalone terminal, kept for supervisors.
			return p, l.T("staff.counter.terminal_supervisors"), ErrBadCounterPayment
		}
		p.Given = ""
		if p.Reference == "" {
			p.Field = "reference"
			return p, l.T("staff.counter.reference_needed"), ErrBadCounterPayment
		}
		if len(p.Reference) > 64 || strings.IndexFunc(p.Reference, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			p.Field = "reference"
			return p, l.T("staff.counter.reference_too_long", "Max", 64), ErrBadCounterPayment
		}
		p.Tender, p.CardType = cmp.Or(v.settings.TenderTerminal, "CREDIT"), "Card terminal"
	case "cash":
		if p.Given != "" {
			cents, ok := ParseCashAmount(p.Given)
			if !ok {
				p.Field = "given"
				return p, l.T("staff.counter.given_unreadable"), ErrBadCounterPayment
			}
			if cents < due.Cents {
				p.Field = "given"
				return p, l.T("staff.counter.given_too_little", "Amount", l.Money(due)), ErrBadCounterPayment
			}
			p.Change = l.Money(cinema.Money{Cents: cents - due.Cents, Currency: due.Currency})
			if c.FormValue("confirm") != "1" {
				return p, "", ErrConfirmCash
			}
		}
		p.Reference, p.Tender, p.CardType = "CASH-"+strings.ToUpper(ledger.NewID()[:10]), cmp.Or(v.settings.TenderCash, "CASH"), "Cash"
	default:
		return p, l.T("staff.counter.method_missing"), ErrBadCounterPayment
	}
	return p, "", nil
}

// CheckCounterReference checks a card terminal's typed reference with the payment provider
// for use (settlement.CheckCounterReference): a payment of the provider is accepted only as
// this counter's card payment of the amount taken, and is then recorded under its payment
// intent. A refusal is said in words next to the field. Cash has a reference of ours: nothing
// to check.
func (v *Visits) CheckCounterReference(c echo.Context, st *settlement.Settler, p CounterPayment, use settlement.ReferenceUse) (CounterPayment, string, error) {
	if p.Method != "terminal" {
		return p, "", nil
	}
	ref, err := st.CheckCounterReference(c.Request().Context(), p.Reference, use)
	var refused *settlement.ReferenceError
	if errors.As(err, &refused) {
		p.Field = "reference"
		return p, referenceProblemWords(web.Loc(c), refused, use.Amount), ErrBadCounterPayment
	}
	if err != nil {
		return p, "", err
	}
	p.Reference = ref
	return p, "", nil
}

// referenceProblemWords says why a terminal reference was refused, in l's language, with what
// to do instead.
func referenceProblemWords(l *i18n.Localizer, e *settlement.ReferenceError, due cinema.Money) string {
	switch e.Problem {
	case settlement.RefUnknown:
		return l.T("staff.counter.reference_unknown", "Reference", e.Reference)
	case settlement.RefUnchecked:
		return l.T("staff.counter.reference_unchecked")
	case settlement.RefNotPaid:
		return l.T("staff.counter.reference_not_paid")
	case settlement.RefAmount:
		return l.T("staff.counter.reference_amount", "Paid", l.Money(e.Amount), "Due", l.Money(due))
	case settlement.RefTaken:
		return l.T("staff.counter.reference_taken")
	default:
		return l.T("staff.counter.reference_is_online")
	}
}

// ReferenceRefusal says, for the error of recording a counter payment, why its reference was
// refused (ok false: the error is not about the reference): one recorded for another payment
// already, with when.
func (v *Visits) ReferenceRefusal(c echo.Context, p CounterPayment, err error) (problem string, ok bool) {
	var used *boxoffice.UsedError
	if !errors.As(err, &used) {
		return "", false
	}
	l := web.Loc(c)
	web.LoggerFrom(c.Request().Context(), v.kernel.Logger).Warn("counter reference refused: recorded for another payment", "reference", p.Reference, "earlier", used.Earlier.Owner)
	ctx := c.Request().Context()
	zone := v.CinemaByID(ctx, used.Earlier.CinemaID).Location()
	return l.T("staff.counter.reference_used", "When", words.WhenWithSeconds(l, used.Earlier.At, zone)), true
}

// HasReader reports whether this device takes cards on its own card reader.
func (v *Visits) HasReader(c echo.Context) bool {
	return v.readers != nil && web.DeviceOf(c).ReaderID != ""
}

// CounterPay completes the counter's payment page of the amount due, whose flow gave what is
// paid for and where the form goes: the amount in the page's language, the form's token, what
// the page offers (the device's card reader, and a standalone terminal's typed reference for
// supervisors) and why the card reader did not take the last attempt (the flash).
func (v *Visits) CounterPay(c echo.Context, view components.CounterPayView, due cinema.Money) components.CounterPayView {
	view.Amount, view.DueCents, view.Currency = web.Loc(c).Money(due), due.Cents, due.Currency
	view.CSRFToken = web.CSRFToken(c)
	_, supervisor := v.kernel.StaffRole(c)
	view.Reader, view.Terminal = v.HasReader(c), supervisor
	view.ReaderMoved = v.ReaderMoved(c)
	if msg := v.kernel.PopFlash(c); msg != "" {
		view.Error = msg
	}
	return view
}

// ParseCashAmount reads an amount of money as a clerk types it: "20", "20.5", "20,50",
// "1.000,00" or "1,000.00" (a separator followed by one or two digits at the end is the
// decimal one). ok is false for anything else.
func ParseCashAmount(s string) (cents int64, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	whole, frac := s, ""
	if i := strings.LastIndexAny(s, ".,"); i >= 0 && len(s)-i-1 <= 2 && len(s)-i-1 > 0 {
		whole, frac = s[:i], s[i+1:]
	}
	whole = strings.NewReplacer(".", "", ",", "", " ", "", "\u00a0", "").Replace(whole)
	if whole == "" {
		whole = "0"
	}
	for _, part := range []string{whole, frac} {
		if strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return 0, false
		}
	}
	if len(whole) > 9 {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			f *= 10
		}
	}
	return w*100 + f, true
}

// CounterForm is the payment page again after ReadCounterPayment said no: the problem next to
// its field (or at the top), or the change due with a button to confirm it, and the status to
// answer with.
func CounterForm(v components.CounterPayView, p CounterPayment, problem string, err error) (components.CounterPayView, int) {
	v.Method, v.Reference, v.Given, v.Change = p.Method, p.Reference, p.Given, p.Change
	if errors.Is(err, ErrConfirmCash) {
		v.ConfirmCash = true
		return v, http.StatusOK
	}
	if p.Field != "" {
		v.FieldError, v.ErrorField = problem, p.Field
	} else {
		v.Error = problem
	}
	return v, http.StatusUnprocessableEntity
}
