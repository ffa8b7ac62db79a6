package checkout

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	purchases "github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages"
)

func (s *Handler) buyCounterView(c echo.Context, v visit.Buy, due cinema.Money) pages.CounterPayView {
	l := web.Loc(c)
	cv := pages.CounterPayView{What: l.N("staff.counter.sale_what", v.Places, "Film", v.FilmTitle),
		Amount: l.Money(due), DueCents: due.Cents, Currency: due.Currency, ActionURL: s.URL(web.RouteBuyCounterPay), BackURL: s.URL(web.RouteBuySummary), BackLabel: l.T("staff.counter.back_to_order"),
		CSRFToken: web.CSRFToken(c)}
	s.CounterMethods(c, &cv)
	if msg := s.PopFlash(c); msg != "" {
		cv.Error = msg // why the card reader did not take the last attempt
	}
	return cv
}

func (s *Handler) showBuyCounterPay(c echo.Context) error {
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
func (s *Handler) takeBuyCounterPay(c echo.Context) error {
	user := s.StaffUser(c) // countersOnly
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if rec, busy := s.BuyPaymentUnderWay(c, v); busy {
		return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
	}
	o, err := s.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	due := o.ToPay()
	p, problem, err := s.ReadCounterPayment(c, due)
	if err == nil && p.Method == "reader" && due.Cents > 0 {
		return s.payBuyOnReader(c, v, o, due, p.Tender, user)
	}
	if err == nil {
		p, problem, err = s.CheckCounterReference(c, s.Settler(), p)
	}
	if err == nil && s.BoxOffice != nil && due.Cents > 0 {
		// The reference is the sale's alone; pressing again for this order finds it recorded.
		_, rerr := s.BoxOffice.Record(ctx, boxoffice.Payment{Reference: p.Reference, Tender: boxoffice.Tender(p.Method), AmountCents: due.Cents,
			Currency: due.Currency, CinemaID: v.CinemaID, Owner: "sale:" + v.UserSessionID, Actor: user})
		if refusal, ok := s.ReferenceRefusal(c, p, rerr); ok {
			p.Field, problem, err = "reference", refusal, visit.ErrBadCounterPayment
		} else if rerr != nil {
			return rerr
		}
	}
	if err != nil {
		cv, status := visit.CounterForm(s.buyCounterView(c, v, due), p, problem, err)
		return s.Render(c, status, web.Loc(c).T("staff.counter.title"), pages.CounterPay(cv))
	}
	st := s.checkout()
	rec, err := st.store.Create(ctx, purchases.Record{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID,
		CustomerName: v.Name, CustomerEmail: v.Email, AmountCents: due.Cents, Currency: due.Currency, Summary: s.snapshotOf(ctx, v, o, counterPaid(p))})
	if errors.Is(err, purchases.ErrActiveExists) {
		return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
	}
	if err != nil {
		return err
	}
	s.AddBuyRef(c, rec.ID)
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
		cv.Method, cv.Reference, cv.Given = p.Method, p.Reference, p.Given
		cv.Error, cv.Failed = web.Loc(c).T("staff.counter.sale_failed"), true
		web.LoggerFrom(ctx, s.Logger).Warn("counter sale not completed", "err", err)
		return s.Render(c, http.StatusServiceUnavailable, web.Loc(c).T("staff.counter.title"), pages.CounterPay(cv))
	}
	if _, err := st.store.MarkCompleted(ctx, rec.ID, d.BookingNumber); err != nil {
		return err
	}
	if s.BoxOffice != nil && due.Cents > 0 {
		// A refund of this booking gives this money back at the box office, never online.
		if err := s.BoxOffice.SetBooking(ctx, p.Reference, v.CinemaID, d.BookingNumber); err != nil {
			web.LoggerFrom(ctx, s.Logger).Error("counter sale's payment not tied to its booking", "booking", d.BookingNumber, "err", err)
		}
	}
	s.RecordAudit(c, audit.Entry{Action: audit.ActionSale, CinemaID: v.CinemaID, BookingNumber: d.BookingNumber, AmountCents: due.Cents,
		Currency: due.Currency, Detail: fmt.Sprintf("%d tickets, %s, reference %s, sold by %s", v.Places, p.CardType, p.Reference, user)})
	return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
}

// counterPaid is what the confirmation says about a payment taken at the counter.
func counterPaid(p visit.CounterPayment) *purchases.SnapshotPaid {
	paid := &purchases.SnapshotPaid{Tender: p.Method, Reference: p.Reference}
	if cents, ok := visit.ParseCashAmount(p.Given); ok && p.Method == "cash" {
		paid.GivenCents = cents
	}
	return paid
}
