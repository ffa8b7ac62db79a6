package bff

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages"
)

func (s *Server) registerCounterRoutes() {
	counters := s.CountersOnly()
	s.route("GET", web.RouteEditCounterPay, s.showEditCounterPay, counters)
	s.route("POST", web.RouteEditCounterPay, s.takeEditCounterPay, counters)
	s.route("GET", web.RouteBuyCounterPay, s.showBuyCounterPay, counters)
	s.route("POST", web.RouteBuyCounterPay, s.takeBuyCounterPay, counters)
	s.route("POST", web.RouteNextCustomer, s.nextCustomer, s.StaffOnly())
}

// counterPayment is what the counter's payment form says.
type counterPayment struct {
	Method    string // terminal | cash
	Reference string // the terminal's reference; ours for cash
	Tender    string
	CardType  string
}

// actionApprovalRefused is the audit action of a refused refund approval.
const actionApprovalRefused = audit.ActionApprovalRefused

// errBadCounterPayment is a form the payment cannot be recorded from.
var errBadCounterPayment = errors.New("counter payment form incomplete")

// readCounterPayment checks the form: a card payment needs the terminal's reference (printable,
// at most 64 characters); cash gets a reference of ours. The problem is in the page's language;
// CardType is stored data (the ledger, the audit trail) and stays English.
func (s *Server) readCounterPayment(c echo.Context) (counterPayment, string, error) {
	l := web.Loc(c)
	p := counterPayment{Method: c.FormValue("method"), Reference: strings.TrimSpace(c.FormValue("reference"))}
	switch p.Method {
	case "terminal":
		if p.Reference == "" {
			return p, l.T("staff.counter.reference_missing"), errBadCounterPayment
		}
		if len(p.Reference) > 64 || strings.IndexFunc(p.Reference, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			return p, l.T("staff.counter.reference_too_long", "Max", 64), errBadCounterPayment
		}
		p.Tender, p.CardType = cmp.Or(s.Cfg.TenderTerminal, "CREDIT"), "Card terminal"
	case "cash":
		p.Reference, p.Tender, p.CardType = "CASH-"+strings.ToUpper(ledger.NewID()[:10]), cmp.Or(s.Cfg.TenderCash, "CASH"), "Cash"
	default:
		return p, l.T("staff.counter.method_missing"), errBadCounterPayment
	}
	return p, "", nil
}

// editBalance reads what the edit in progress costs now.
func (s *Server) editBalance(c echo.Context, e editVisit) (cinema.Money, error) {
	o, err := s.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil {
		return cinema.Money{}, s.editEnded(c, e, err)
	}
	return o.Total, nil
}

func (s *Server) editCounterView(c echo.Context, e editVisit, due cinema.Money) pages.CounterPayView {
	l := web.Loc(c)
	return pages.CounterPayView{What: l.T("staff.counter.edit_what", "Number", e.BookingNumber),
		Amount: l.Money(due), ActionURL: s.URL(web.RouteEditCounterPay), BackURL: s.URL(web.RouteEdit), BackLabel: l.T("staff.counter.back_to_change"),
		CSRFToken: web.CSRFToken(c)}
}

func (s *Server) showEditCounterPay(c echo.Context) error {
	e, err := s.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	due, err := s.editBalance(c, e)
	if err != nil {
		return err
	}
	if due.Cents <= 0 {
		return s.Redirect(c, s.URL(web.RouteEdit))
	}
	return s.Render(c, http.StatusOK, web.Loc(c).T("staff.counter.title"), pages.CounterPay(s.editCounterView(c, e, due)))
}

// takeEditCounterPay records a payment taken at the counter and completes the edit with it:
// a ledger entry (with the staff member and the tender) goes straight to paid, and the settler
// applies it with complete-edit as it does a provider's payment.
func (s *Server) takeEditCounterPay(c echo.Context) error {
	user := s.StaffUser(c) // countersOnly
	e, err := s.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	due, err := s.editBalance(c, e)
	if err != nil {
		return err
	}
	if due.Cents <= 0 {
		return s.Redirect(c, s.URL(web.RouteEdit))
	}
	p, problem, err := s.readCounterPayment(c)
	if err != nil {
		v := s.editCounterView(c, e, due)
		v.Method, v.Reference, v.Error = p.Method, p.Reference, problem
		return s.Render(c, http.StatusUnprocessableEntity, web.Loc(c).T("staff.counter.title"), pages.CounterPay(v))
	}
	lines, _ := editLinesIn(web.Loc(c), e, mustOrder(s, c, e))
	e.Summary = changeSummary(lines)
	notice, _ := json.Marshal(editNotice(ctx, e, noticeLines(lines), cinema.Money{}, cinema.Money{}))
	st := s.Settler()
	change := settlement.Change{EditSessionID: e.UserSessionID, CinemaID: e.CinemaID, BookingID: e.BookingID, BookingNumber: e.BookingNumber,
		Notice: string(notice), Actor: user}
	entry, recorded, err := st.RecordCounterPayment(ctx, change, due, settlement.CounterPayment{Tender: p.Tender, Reference: p.Reference, CardType: p.CardType})
	if err != nil {
		return err
	}
	if recorded {
		s.RecordAudit(c, audit.Entry{Action: audit.ActionPayment, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber,
			AmountCents: due.Cents, Currency: due.Currency, Detail: fmt.Sprintf("%s, reference %s, for a change to the booking", p.CardType, entry.ProviderReference)})
	}
	e.Entry = entry.ID
	s.saveEdit(c, e)
	entry, err = st.Advance(ctx, entry.ID)
	if err != nil {
		web.LoggerFrom(ctx, s.Logger).Warn("counter payment not applied yet", "entry", entry.ID, "err", err)
	}
	return s.afterSettle(c, e, entry)
}

// mustOrder reads the edit order for the change summary; nil when it cannot be read (the
// summary then says only that the change is saved).
func mustOrder(s *Server, c echo.Context, e editVisit) cinema.Order {
	o, err := s.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil {
		return cinema.Order{}
	}
	return o
}

// refundNeedsApproval reports a refund that needs a supervisor's approval: one above
// -refund-approval-above made by a signed-in staff member who is not an enabled supervisor,
// wherever they are signed in (a counter, an ordinary browser, a kiosk). The role is read from
// the account for this request. A supervisor's own refund needs none, nor does a customer's of
// their own booking.
func (s *Server) refundNeedsApproval(c echo.Context, refund cinema.Money) bool {
	user, supervisor := s.StaffRole(c)
	return user != "" && !supervisor && refund.Cents > s.refundApprovalLimit()
}

func (s *Server) refundApprovalLimit() int64 { return cmp.Or(s.Cfg.RefundApprovalAbove, 5000) }

// refundApproval checks a supervisor's approval of a clerk's refund above the limit, before
// any money moves. ok=true: go on (no approval needed, or approved and recorded); otherwise the
// approval page has been rendered (err is what the handler returns). The page is a plain form
// posting back to complete the edit, so it works without JavaScript on every device.
func (s *Server) refundApproval(c echo.Context, e editVisit, refund cinema.Money) (ok bool, err error) {
	if !s.refundNeedsApproval(c, refund) {
		return true, nil
	}
	l := web.Loc(c)
	title := l.T("staff.approval.page_title")
	v := pages.ApprovalView{Amount: l.Money(refund), Limit: l.Money(cinema.Money{Cents: s.refundApprovalLimit(), Currency: refund.Currency}),
		ActionURL: s.URL(web.RouteEditComplete), BackURL: s.URL(web.RouteEdit), CSRFToken: web.CSRFToken(c),
		Approver: strings.TrimSpace(c.FormValue("approver")), Reason: strings.TrimSpace(c.FormValue("reason"))}
	if c.FormValue("approval") == "" {
		return false, s.Render(c, http.StatusOK, title, pages.Approval(v))
	}
	if v.Reason == "" {
		v.Error = l.T("staff.approval.reason_missing")
		return false, s.Render(c, http.StatusUnprocessableEntity, title, pages.Approval(v))
	}
	sup, aerr := s.approveBy(c.Request().Context(), v.Approver, c.FormValue("pin"))
	if aerr != nil {
		why := approvalRefusalWhy(aerr)
		if why == "" {
			return false, aerr
		}
		v.Error = approvalRefusal(l, aerr)
		s.RecordAudit(c, audit.Entry{Action: actionApprovalRefused, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber,
			AmountCents: refund.Cents, Currency: refund.Currency, Reason: v.Reason, Detail: fmt.Sprintf("approver typed: %s (%s)", v.Approver, why)})
		return false, s.Render(c, http.StatusForbidden, title, pages.Approval(v))
	}
	s.RecordAudit(c, audit.Entry{Action: audit.ActionApproval, Actor: sup.Username, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber,
		AmountCents: refund.Cents, Currency: refund.Currency, Reason: v.Reason, Detail: "refund approved for " + s.StaffUser(c)})
	return true, nil
}

// Selling at the counter: the buy path for a walk-in customer, paid by terminal or cash.

func (s *Server) buyCounterView(c echo.Context, v buyVisit, due cinema.Money) pages.CounterPayView {
	l := web.Loc(c)
	return pages.CounterPayView{What: l.N("staff.counter.sale_what", v.Places, "Film", v.FilmTitle),
		Amount: l.Money(due), ActionURL: s.URL(web.RouteBuyCounterPay), BackURL: s.URL(web.RouteBuySummary), BackLabel: l.T("staff.counter.back_to_order"),
		CSRFToken: web.CSRFToken(c)}
}

func (s *Server) showBuyCounterPay(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	o, err := s.Ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	return s.Render(c, http.StatusOK, web.Loc(c).T("staff.counter.title"), pages.CounterPay(s.buyCounterView(c, v, o.ToPay())))
}

// takeBuyCounterPay completes a counter sale: the order is completed with the payment taken
// at the counter (CompleteOrder's PaymentInfo with the counter's tender), recorded like any
// purchase, and the confirmation shows the tickets.
func (s *Server) takeBuyCounterPay(c echo.Context) error {
	user := s.StaffUser(c) // countersOnly
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if rec, busy := s.buyPaymentUnderWay(c, v); busy {
		return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
	}
	o, err := s.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	due := o.ToPay()
	p, problem, err := s.readCounterPayment(c)
	if err != nil {
		cv := s.buyCounterView(c, v, due)
		cv.Method, cv.Reference, cv.Error = p.Method, p.Reference, problem
		return s.Render(c, http.StatusUnprocessableEntity, web.Loc(c).T("staff.counter.title"), pages.CounterPay(cv))
	}
	st := s.checkout()
	rec, err := st.store.Create(ctx, checkout.Record{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID,
		CustomerName: v.Name, CustomerEmail: v.Email, AmountCents: due.Cents, Currency: due.Currency, Summary: snapshotOf(ctx, v, o)})
	if errors.Is(err, checkout.ErrActiveExists) {
		return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
	}
	if err != nil {
		return err
	}
	s.addBuyRef(c, rec.ID)
	req := upstream.CompleteOrderRequest{UserSessionID: v.UserSessionID, CustomerName: v.Name, CustomerEmail: v.Email,
		BookingMode: upstream.BookingModeSale, PerformPayment: true, GeneratePrintStream: true, ReturnPrintStream: true}
	if due.Cents > 0 {
		req.Payment = &upstream.OrderPayment{AmountCents: due.Cents, TenderCategory: p.Tender, CardNumber: p.Reference, CardType: strings.ToUpper(p.Method)}
	}
	d, err := s.Ticketing.CompleteOrder(ctx, req)
	if err != nil || !d.Completed {
		_, _ = st.store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("counter sale: ", err))
		if err == nil {
			err = errors.New("the ticketing system did not confirm the sale")
		}
		cv := s.buyCounterView(c, v, due)
		cv.Method, cv.Reference = p.Method, p.Reference
		cv.Error = web.Loc(c).T("staff.counter.sale_failed")
		web.LoggerFrom(ctx, s.Logger).Warn("counter sale not completed", "err", err)
		return s.Render(c, http.StatusServiceUnavailable, web.Loc(c).T("staff.counter.title"), pages.CounterPay(cv))
	}
	if _, err := st.store.MarkCompleted(ctx, rec.ID, d.BookingNumber); err != nil {
		return err
	}
	s.RecordAudit(c, audit.Entry{Action: audit.ActionSale, CinemaID: v.CinemaID, BookingNumber: d.BookingNumber, AmountCents: due.Cents,
		Currency: due.Currency, Detail: fmt.Sprintf("%d tickets, %s, reference %s, sold by %s", v.Places, p.CardType, p.Reference, user)})
	return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
}

// nextCustomer ends the customer's part of the visit: the edit order is released (cancelled
// upstream, the original booking stays), a purchase order in progress too, the booking is
// unbound; the staff member stays signed in.
func (s *Server) nextCustomer(c echo.Context) error {
	ctx := c.Request().Context()
	bb, _ := s.boundBooking(c)
	if entry := s.releaseEdit(c); entry != nil {
		s.Flash(c, web.Loc(c).T("staff.counter.next_busy"))
		return s.Redirect(c, s.URL(web.RouteEditStatus, entry.ID))
	}
	s.releaseBuy(c)
	s.clearEdit(c)
	s.clearBuy(c)
	for _, k := range []string{sessBookingCinema, sessBookingNumber, sessChanges, sessMailKey, swap.SessionPending, swap.SessionDone, web.SessFlash} {
		s.Sessions.Remove(ctx, k)
	}
	if err := s.RenewSession(c); err != nil {
		return err
	}
	s.RecordAudit(c, audit.Entry{Action: audit.ActionNextCustomer, CinemaID: bb.CinemaID, BookingNumber: bb.Number})
	s.Flash(c, web.Loc(c).T("staff.counter.next_ready"))
	return s.Redirect(c, s.URL(web.RouteFindBooking))
}
