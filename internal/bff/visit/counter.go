package visit

import (
	"cmp"
	"errors"
	"strings"
	"unicode"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/labstack/echo/v4"
)

// CounterPayment is what the counter's payment form says.
type CounterPayment struct {
	Method    string // terminal | cash
	Reference string // the terminal's reference; ours for cash
	Tender    string
	CardType  string
}

// ErrBadCounterPayment is a form the payment cannot be recorded from.
var ErrBadCounterPayment = errors.New("counter payment form incomplete")

// ReadCounterPayment checks the form: a card payment needs the terminal's reference (printable,
// at most 64 characters); cash gets a reference of ours. The problem is in the page's language;
// CardType is stored data (the ledger, the audit trail) and stays English.
func (s *Visits) ReadCounterPayment(c echo.Context) (CounterPayment, string, error) {
	l := web.Loc(c)
	p := CounterPayment{Method: c.FormValue("method"), Reference: strings.TrimSpace(c.FormValue("reference"))}
	switch p.Method {
	case "terminal":
		if p.Reference == "" {
			return p, l.T("staff.counter.reference_missing"), ErrBadCounterPayment
		}
		if len(p.Reference) > 64 || strings.IndexFunc(p.Reference, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			return p, l.T("staff.counter.reference_too_long", "Max", 64), ErrBadCounterPayment
		}
		p.Tender, p.CardType = cmp.Or(s.Cfg.TenderTerminal, "CREDIT"), "Card terminal"
	case "cash":
		p.Reference, p.Tender, p.CardType = "CASH-"+strings.ToUpper(ledger.NewID()[:10]), cmp.Or(s.Cfg.TenderCash, "CASH"), "Cash"
	default:
		return p, l.T("staff.counter.method_missing"), ErrBadCounterPayment
	}
	return p, "", nil
}
